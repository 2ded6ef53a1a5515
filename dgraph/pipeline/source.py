"""A pipeline's text: YAML read with a safe loader, every node's file position kept, ``--set`` applied.

``load_source(path)`` gives a :class:`Source`: the plain data (dicts, lists,
scalars: nothing in the file is ever executed or turned into an object) and
where each node came from, so every later error can say ``file:line:col``.
Values given on the command line (``--set steps.rank.iterations=30``) are
placed into the data and remembered as ``--set <key>=<value>``.

A hostile file is one ``file:line:col`` error, at once: at most MAX_BYTES, nested
at most MAX_DEPTH deep (checked while PyYAML composes, before its recursion could
exhaust the stack), aliases adding at most MAX_ALIAS_VALUES values (a "billion
laughs" file) and never naming their own ancestor, no merge keys, and only the
plain scalar tags (text, numbers, true/false, null).  ``--set`` values are read
by the same rules.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..errors import MissingFileError, PipelineError


class Source:
    """Pipeline data plus the position of each node (by key path)."""

    def __init__(self, data, positions, name, text=None):
        self.text = text
        self.data = data
        self.positions = positions  # path tuple -> "file:line:col" or "--set ..."
        self.name = name

    def where(self, path):
        """The position of ``path`` or of its closest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), self.name)

    def error(self, path, message):
        return PipelineError(f"{self.where(path)}: {_dotted(path)}{': ' if path else ''}{message}")


def _dotted(path):
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + str(p))
    return out


#: a pipeline file is a page of settings: limits that no real one comes near, so that a hostile
#: file (an alias bomb, thousands of nested brackets) is one error within a second
MAX_BYTES = 4 << 20
MAX_DEPTH = 32
#: values that aliases (``*name``) may add beyond the nodes written out in the file
MAX_ALIAS_VALUES = 10_000
#: the scalar tags a pipeline may hold (what the safe loader resolves plain text to)
SCALAR_TAGS = {f"tag:yaml.org,2002:{t}": t for t in ("str", "int", "float", "bool", "null")}
_PLAIN_TYPES = (str, int, float, bool, type(None))


def load_source(path):
    path = Path(path)
    if not path.is_file():
        raise MissingFileError(f"{path}: no such pipeline file")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise PipelineError(f"{path}:1:1: {size:,} bytes; a pipeline file is at most {MAX_BYTES:,} bytes "
                                f"(settings, not data: list big vertex sets in a file the graph reads)")
        data = path.read_bytes()
    except OSError as e:
        raise PipelineError(f"{path}: cannot be read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise PipelineError(f"{path}:{line}:{col}: not UTF-8 text (byte 0x{data[e.start]:02x})") from None
    return parse_source(text, str(path))


class _TooDeep(Exception):
    def __init__(self, mark):
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """The safe loader, counting the nodes it composes and refusing nesting deeper than MAX_DEPTH
    before PyYAML's recursive composer could exhaust the stack."""

    def __init__(self, text):
        super().__init__(text)
        self.depth = 0
        self.nodes = 0

    def compose_node(self, parent, index):
        self.depth += 1
        self.nodes += 1
        try:
            if self.depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _position(text, index):
    """(line, column), 1-based, of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _compose(text, name, marks=True):
    """(loader, root node or None): the text parsed into nodes, every failure a PipelineError naming
    ``name:line:col`` (only ``name`` where ``marks`` is false: a --set value)."""
    def at(line, col):
        return f"{name}:{line}:{col}" if marks else name

    if len(text) > MAX_BYTES:
        raise PipelineError(f"{at(1, 1)}: {len(text):,} characters; a pipeline is at most {MAX_BYTES:,}")
    loader = None
    try:
        loader = _Loader(text)  # reads the text: a control character fails here
        return loader, loader.get_single_node()
    except _TooDeep as e:
        raise PipelineError(f"{at(e.mark.line + 1, e.mark.column + 1)}: nested more than {MAX_DEPTH} "
                            f"levels deep; a pipeline is a few levels of mappings and lists") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = at(mark.line + 1, mark.column + 1) if mark else at(1, 1)
        raise PipelineError(f"{where}: not valid YAML: {e.problem or e.context}") from None
    except yaml.reader.ReaderError as e:
        what = f"character #x{e.character:04x}" if isinstance(e.character, int) else "a byte"
        raise PipelineError(f"{at(*_position(text, e.position))}: not valid YAML: {what} is not allowed "
                            f"({e.reason})") from None
    except yaml.YAMLError as e:
        raise PipelineError(f"{at(1, 1)}: not valid YAML: {e}") from None
    except RecursionError:  # a last resort: MAX_DEPTH keeps the composer well inside the stack
        raise PipelineError(f"{at(1, 1)}: nested too deeply to read") from None
    finally:
        if loader is not None:
            loader.dispose()


def parse_source(text, name="<pipeline>"):
    loader, root = _compose(text, name)
    positions = {(): f"{name}:1:1"}
    if root is None:
        return Source({}, positions, name, text)
    data = _Converter(loader, name, positions).convert(root, ())
    if not isinstance(data, dict):
        raise PipelineError(f"{positions[()]}: a pipeline is a mapping (cluster, graph, partition, steps, "
                            f"outputs), got {type(data).__name__}")
    return Source(data, positions, name, text)


def parse_value(text, where):
    """One ``--set`` value, read as YAML with the file's rules (plain data, no bombs)."""
    loader, root = _compose(text, where, marks=False)
    if root is None:
        return None
    return _Converter(loader, where, None).convert(root, ())


def _mark(node, name):
    return f"{name}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"


_PLAIN = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_MERGE = "tag:yaml.org,2002:merge"


class _Converter:
    """Nodes into plain dicts, lists and scalars, recording each node's position by key path.

    An alias is the same node object as its anchor, so a node met again is an alias's copy: those
    copies may add at most MAX_ALIAS_VALUES values (a "billion laughs" file stops at once), and a node
    met again inside itself is an alias to its own ancestor (``x: &r [*r]``)."""

    def __init__(self, loader, name, positions):
        self.loader, self.name = loader, name
        self.positions = positions
        self.budget = loader.nodes + MAX_ALIAS_VALUES
        self.open = set()

    def fail(self, node, path, message):
        if self.positions is None:  # a --set value: its own text is the position
            raise PipelineError(f"{self.name}: the value{' ' + _dotted(path) if path else ''}: {message}")
        raise PipelineError(f"{_mark(node, self.name)}: {_dotted(path) or 'top level'}: {message}")

    def convert(self, node, path):
        self.budget -= 1
        if self.budget < 0:
            self.fail(node, path, f"aliases (*name) expand this file past {MAX_ALIAS_VALUES:,} extra values; "
                                  f"a pipeline is a page of settings")
        if id(node) in self.open:
            self.fail(node, path, "an alias (*name) inside the value it names: the value would never end")
        if self.positions is not None:
            self.positions[path] = _mark(node, self.name)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            if node.tag not in _PLAIN:
                self.fail(node, path, f"the tag {node.tag} is not allowed: a pipeline file holds plain data "
                                      f"(mappings, lists, numbers, text) only")
            self.open.add(id(node))
            try:
                if isinstance(node, yaml.SequenceNode):
                    return [self.convert(item, path + (i,)) for i, item in enumerate(node.value)]
                return self.mapping(node, path)
            finally:
                self.open.discard(id(node))
        return self.scalar(node, path)

    def mapping(self, node, path):
        out = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.fail(key_node, path, "a key must be a plain word")
            if key_node.tag == _MERGE:
                self.fail(key_node, path, "merge keys (<<) are not supported: write the keys out (an alias "
                                          "*name may stand for a whole value)")
            key = self.scalar(key_node, path)
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                key = str(key)  # a vertex id stays an int (personalization: {0: 1.0}); true, 1.5, null: text
            if key in out:
                self.fail(key_node, path + (key,), "given twice")
            out[key] = self.convert(value_node, path + (key,))
            if self.positions is not None:
                self.positions[path + (key,)] = _mark(key_node, self.name)  # a key's errors point at the key
        return out

    def scalar(self, node, path):
        if node.tag not in SCALAR_TAGS:
            what = {"tag:yaml.org,2002:timestamp": "a date or time (quote it to mean text)",
                    "tag:yaml.org,2002:binary": "binary data"}.get(node.tag, f"the tag {node.tag}")
            self.fail(node, path, f"{what} is not allowed: a pipeline file holds plain data (mappings, lists, "
                                  f"numbers, text) only")
        try:
            value = self.loader.construct_object(node)
        except (yaml.YAMLError, ValueError) as e:  # ValueError: an integer of more than 4300 digits
            self.fail(node, path, f"{getattr(e, 'problem', None) or e}")
        if not isinstance(value, _PLAIN_TYPES):
            self.fail(node, path, f"expected plain data, got {type(value).__name__}")
        return value


# -- --set KEY=VALUE ------------------------------------------------------------------------------

def apply_overrides(source, overrides):
    """Apply ``KEY=VALUE`` strings; KEY is dotted, a step named by its ``name`` (``steps.rank.iterations``)
    or its position (``steps.0.source``); VALUE is read as YAML (``30``, ``true``, ``[1, 2]``)."""
    for text in overrides or ():
        where = f"--set {text}"
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise PipelineError(f"{where}: expected KEY=VALUE, e.g. steps.rank.iterations=30")
        parsed = parse_value(value, where) if value.strip() else None
        parts = [p for p in key.strip().split(".")]
        if any(not p for p in parts):
            raise PipelineError(f"{where}: an empty part in the key {key!r}")
        node, path = source.data, ()
        for i, part in enumerate(parts[:-1]):
            node, step = _descend(node, part, path, where, source)
            path = path + (step,)
        last = parts[-1]
        if isinstance(node, list):
            _, index = _descend(node, last, path, where, source)
            node[index] = parsed
            path = path + (index,)
        elif isinstance(node, dict):
            node[last] = parsed
            path = path + (last,)
        else:
            raise PipelineError(f"{where}: {_dotted(path)} is a single value, it has no key {last!r}")
        for p in [p for p in source.positions if p[:len(path)] == path]:
            del source.positions[p]
        source.positions[path] = where
    return source


def _descend(node, part, path, where, source):
    if isinstance(node, dict):
        if part not in node:
            node[part] = {}
        return node[part], part
    if isinstance(node, list):
        if part.isdigit() and int(part) < len(node):
            return node[int(part)], int(part)
        for i, item in enumerate(node):
            if isinstance(item, dict) and item.get("name") == part:
                return item, i
        names = [str(item.get("name")) for item in node if isinstance(item, dict)]
        raise PipelineError(f"{where}: {_dotted(path)} has no step named {part!r}; "
                            f"steps: {', '.join(names) or 'none'}")
    raise PipelineError(f"{where}: {_dotted(path)} is a single value, it has no key {part!r}")

"""A pipeline's text: YAML read with a safe loader, every node's file position kept, ``--set`` applied.

``load_source(path)`` gives a :class:`Source`: the plain data (dicts, lists,
scalars: nothing in the file is ever executed or turned into an object) and
where each node came from, so every later error can say ``file:line:col``.
Values given on the command line (``--set steps.rank.iterations=30``) are
placed into the data and remembered as ``--set <key>=<value>``.
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


def load_source(path):
    path = Path(path)
    if not path.is_file():
        raise MissingFileError(f"{path}: no such pipeline file")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise PipelineError(f"{path}: cannot be read as text: {e}") from None
    return parse_source(text, str(path))


def parse_source(text, name="<pipeline>"):
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        raise PipelineError(f"{where}: not valid YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise PipelineError(f"{name}: not valid YAML: {e}") from None
    finally:
        loader.dispose()
    positions = {(): f"{name}:1:1"}
    if root is None:
        return Source({}, positions, name, text)
    data = _convert(loader, root, (), positions, name)
    if not isinstance(data, dict):
        raise PipelineError(f"{positions[()]}: a pipeline is a mapping (cluster, graph, partition, steps, "
                            f"outputs), got {type(data).__name__}")
    return Source(data, positions, name, text)


def _mark(node, name):
    return f"{name}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"


_PLAIN = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


def _convert(loader, node, path, positions, name):
    positions[path] = _mark(node, name)
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _PLAIN:
        raise PipelineError(f"{_mark(node, name)}: {_dotted(path) or 'top level'}: the tag {node.tag} is not "
                            f"allowed: a pipeline file holds plain data (mappings, lists, numbers, text) only")
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise PipelineError(f"{_mark(key_node, name)}: {_dotted(path) or 'top level'}: a key must be "
                                    f"a plain word")
            key = loader.construct_object(key_node)
            if not isinstance(key, str):
                key = str(key)
            if key in out:
                raise PipelineError(f"{_mark(key_node, name)}: {_dotted(path + (key,))}: given twice")
            out[key] = _convert(loader, value_node, path + (key,), positions, name)
            positions[path + (key,)] = _mark(key_node, name)  # a key's errors point at the key
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(loader, item, path + (i,), positions, name) for i, item in enumerate(node.value)]
    try:
        return loader.construct_object(node)
    except yaml.YAMLError as e:
        raise PipelineError(f"{_mark(node, name)}: {_dotted(path)}: {getattr(e, 'problem', None) or e}; a pipeline "
                            f"file holds plain data (mappings, lists, numbers, text) only") from None


# -- --set KEY=VALUE ------------------------------------------------------------------------------

def apply_overrides(source, overrides):
    """Apply ``KEY=VALUE`` strings; KEY is dotted, a step named by its ``name`` (``steps.rank.iterations``)
    or its position (``steps.0.source``); VALUE is read as YAML (``30``, ``true``, ``[1, 2]``)."""
    for text in overrides or ():
        where = f"--set {text}"
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise PipelineError(f"{where}: expected KEY=VALUE, e.g. steps.rank.iterations=30")
        try:
            parsed = yaml.safe_load(value) if value.strip() else None
        except yaml.YAMLError as e:
            raise PipelineError(f"{where}: the value is not valid YAML: {e}") from None
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

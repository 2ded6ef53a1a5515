"""LDBC Graphalytics ``.properties`` files: what a graph's directedness and edge properties are.

The file beside ``<name>.e`` is ``<name>.properties`` (Java properties:
``key = value`` lines, ``#``/``!`` comments), with keys such as
``graph.<name>.directed = true`` and
``graph.<name>.edge-properties.names = weight``.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import FileFormatError


def read_properties(path) -> dict:
    """``{key: (value, line number)}`` of a Java properties file."""
    out = {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FileFormatError(path, None, "not UTF-8 text") from None
    except OSError as exc:
        raise FileFormatError(path, None, f"cannot be read ({exc.strerror or exc})") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        sep = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if sep < 0:
            raise FileFormatError(path, lineno, f"expected 'key = value', found {line!r}")
        out[line[:sep].strip()] = (line[sep + 1:].strip(), lineno)
    return out


def graph_property(props: dict, name: str, key: str):
    """``(value, line)`` of ``graph.<name>.<key>``, else of the only ``graph.*.<key>``; or None."""
    exact = props.get(f"graph.{name}.{key}")
    if exact is not None:
        return exact
    found = [v for k, v in props.items() if k.startswith("graph.") and k.endswith("." + key)]
    return found[0] if len(found) == 1 else None


def directed_property(path, props: dict, name: str):
    """True/False from ``graph.<name>.directed``, or None when the key is absent."""
    found = graph_property(props, name, "directed")
    if found is None:
        return None
    value, line = found
    if value.lower() not in ("true", "false"):
        raise FileFormatError(path, line, f"graph.{name}.directed = {value!r}: expected true or false")
    return value.lower() == "true"


def weighted_property(props: dict, name: str):
    """Whether the edge properties name a weight; None when the file says nothing about them."""
    found = graph_property(props, name, "edge-properties.names")
    if found is None:
        return None
    names = [n.strip() for n in found[0].split(",")]
    return "weight" in names

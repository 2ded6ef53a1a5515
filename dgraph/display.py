"""Shared pieces of the notebook representations (``_repr_html_``) of graphs and results.

Every value that reaches the HTML goes through :func:`esc` (``html.escape``),
so a vertex id such as ``"<b>"`` shows as text.  The helpers return strings;
:func:`html_block` puts a title, a key/value list and tables into one compact
``<div>``.
"""

from __future__ import annotations

import html
import math
import numbers

import numpy as np

# one <style> per block, scoped to its class, so the cells carry no style of their own
_CSS = (".dgraph-repr{font-family:var(--jp-code-font-family,monospace);font-size:12px;line-height:1.35}"
        ".dgraph-repr table{border-collapse:collapse;margin:2px 0 6px 0}"
        ".dgraph-repr th,.dgraph-repr td{padding:1px 8px;border-bottom:1px solid rgba(128,128,128,.25)}"
        ".dgraph-repr .l{text-align:left}.dgraph-repr .r{text-align:right}"
        ".dgraph-repr th.k{font-weight:normal;opacity:.75;text-align:left}"
        ".dgraph-repr caption{text-align:left;font-weight:bold}.dgraph-repr .note{opacity:.7}")
_NUMBER = (numbers.Number, np.number, np.bool_)


def esc(value) -> str:
    """``value`` as HTML-safe text (quotes escaped too)."""
    return html.escape(str(value), quote=True)


def fmt_int(n) -> str:
    """``1234567`` -> ``'1,234,567'``; None -> ``'–'``."""
    if n is None:
        return "–"
    return f"{int(n):,}"


def fmt_num(x, digits=4) -> str:
    """A number for a table cell: ints with thousands separators, floats to ``digits`` significant digits.

    None and NaN show as ``'–'``; bools as ``True``/``False``; anything else via ``str``.
    """
    if x is None:
        return "–"
    if hasattr(x, "item") and np.ndim(x) == 0:
        x = x.item()
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, numbers.Integral):
        return f"{int(x):,}"
    if isinstance(x, numbers.Real):
        x = float(x)
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞" if x > 0 else "-∞"
        if x == int(x) and abs(x) < 1e15:
            return f"{int(x):,}"
        if x != 0 and (abs(x) >= 10 ** digits or abs(x) < 1e-3):
            return f"{x:.{digits - 1}e}"
        return f"{x:.{digits}g}"
    return str(x)


def plural(n, word, words=None) -> str:
    """``1 superstep``, ``2 supersteps``, ``1,024 components`` (``words``: an irregular plural)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def fmt_seconds(s) -> str:
    """A duration: ``0.00042`` -> ``'420 µs'``, ``0.81`` -> ``'810 ms'``, ``75`` -> ``'75.0 s'``."""
    if s is None:
        return "–"
    s = float(s)
    if math.isnan(s):
        return "–"
    if s < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    if s < 600:
        return f"{s:.3g} s" if s < 100 else f"{s:.0f} s"
    return f"{s / 60:.1f} min"


def fmt_bytes(n) -> str:
    """``1536`` -> ``'1.5 KiB'``."""
    if n is None:
        return "–"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def fmt_share(part, whole) -> str:
    """``part / whole`` as a percentage; ``'–'`` when ``whole`` is 0 or unknown."""
    if part is None or not whole:
        return "–"
    return f"{100.0 * part / whole:.1f}%"


def fmt_value(value) -> str:
    """A cell value of any kind (numbers formatted, everything else ``str``), not yet escaped."""
    if isinstance(value, _NUMBER) or value is None:
        return fmt_num(value)
    return str(value)


def html_table(header, rows, *, align=None, title=None) -> str:
    """A small ``<table>``: ``header`` a list of column names, ``rows`` lists of cells.

    Cells are formatted with :func:`fmt_value` and escaped.  ``align`` gives
    one ``'l'``/``'r'`` per column (default: numbers right, text left).
    """
    rows = [list(r) for r in rows]
    ncol = len(header)
    if align is None:
        align = []
        for j in range(ncol):
            col = [r[j] for r in rows if j < len(r)]
            numeric = bool(col) and all(isinstance(v, _NUMBER) or v is None for v in col)
            align.append("r" if numeric else "l")
    out = ["<table>"]
    if title:
        out.append(f"<caption>{esc(title)}</caption>")
    out.append("<thead><tr>")
    for j, h in enumerate(header):
        out.append(f'<th class="{align[j]}">{esc(h)}</th>')
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>")
        for j in range(ncol):
            v = r[j] if j < len(r) else ""
            out.append(f'<td class="{align[j]}">{esc(fmt_value(v))}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def html_fields(fields) -> str:
    """A two-column key/value table from ``(key, value)`` pairs; values formatted and escaped."""
    out = ["<table><tbody>"]
    for key, value in fields:
        out.append(f'<tr><th class="k">{esc(key)}</th><td class="l">{esc(fmt_value(value))}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def html_note(text) -> str:
    """A line of small print (escaped)."""
    return f'<div class="note">{esc(text)}</div>'


def html_block(kind, subtitle, *parts) -> str:
    """The whole representation: ``<div>`` with a bold ``kind`` (e.g. 'dgraph.Graph'), an escaped
    ``subtitle`` and ``parts`` (HTML strings made by the functions above)."""
    head = f"<div><b>{esc(kind)}</b>" + (f" {esc(subtitle)}" if subtitle else "") + "</div>"
    return (f'<div class="dgraph-repr"><style>{_CSS}</style>' + head + "".join(p for p in parts if p)
            + "</div>")


__all__ = ["esc", "fmt_int", "fmt_num", "fmt_seconds", "fmt_bytes", "fmt_share", "fmt_value", "html_table",
           "html_fields", "html_note", "html_block"]

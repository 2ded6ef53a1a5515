"""Plots of a run's supersteps: frontier size and time per superstep.

:func:`superstep_figure` draws the per-superstep stats of a
:class:`~dgraph.engine.result.Result` (``result.stats``) as a matplotlib
Figure made with the object API (no pyplot, so no display or GUI backend is
needed); :func:`save_superstep_plot` writes it as a PNG, whole or not at all.
matplotlib is imported on first use, so ``import dgraph`` stays fast.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np

#: y values spanning more than this ratio (two decades) are drawn on a log scale
LOG_SPAN = 100.0
#: dots on the lines up to this many supersteps
MARKERS_UP_TO = 80


def _frame(stats):
    import pandas as pd  # noqa: PLC0415

    if stats is None:
        return pd.DataFrame()
    if isinstance(stats, pd.DataFrame):
        return stats
    return pd.DataFrame(list(stats))


def _column(df, name):
    """Column ``name`` as float numpy (non-numbers as NaN), or None when absent or all NaN."""
    import pandas as pd  # noqa: PLC0415

    if name not in df.columns:
        return None
    values = pd.to_numeric(df[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return None if np.all(np.isnan(values)) else values


def _wide(*arrays) -> bool:
    """True when the positive values of ``arrays`` span more than LOG_SPAN."""
    pos = np.concatenate([a[np.isfinite(a) & (a > 0)] for a in arrays]) if arrays else np.zeros(0)
    return len(pos) > 1 and pos.max() / pos.min() > LOG_SPAN


def _say(ax, text, where="center"):
    if where == "center":
        ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=11, color="0.35")
    else:  # a note in the upper right corner of a panel that holds lines
        ax.text(0.99, 0.97, text, transform=ax.transAxes, ha="right", va="top", fontsize=8, color="0.4")


_FIGURE = None


def _figure_class():
    """matplotlib's Figure with a PNG rich repr: it shows in Jupyter without pyplot or ``%matplotlib``
    (where pyplot's inline backend is active, IPython's own Figure formatter is used instead)."""
    global _FIGURE
    if _FIGURE is None:
        import io  # noqa: PLC0415

        from matplotlib.figure import Figure  # noqa: PLC0415

        class SuperstepFigure(Figure):
            def _repr_png_(self):
                buf = io.BytesIO()
                self.savefig(buf, format="png")
                return buf.getvalue()

        _FIGURE = SuperstepFigure
    return _FIGURE


#: a title longer than this many characters is wrapped onto more lines (it would be clipped)
TITLE_WIDTH = 70


def _wrap(title, width=TITLE_WIDTH):
    """``title`` on lines of at most about ``width`` characters, broken after its commas (so "222 ms"
    stays whole), or at spaces where one part is longer than a line."""
    import textwrap  # noqa: PLC0415

    lines, line = [], ""
    for part in title.split(", "):
        joined = f"{line}, {part}" if line else part
        if len(joined) <= width or not line:
            line = joined
        else:
            lines.append(line + ",")
            line = part
    lines.append(line)
    return "\n".join(wrapped for ln in lines for wrapped in textwrap.wrap(ln, width, break_on_hyphens=False))


def superstep_figure(stats, title, startup_s=None):
    """A matplotlib Figure of per-superstep stats, in two panels sharing the x axis "superstep".

    stats : a pandas DataFrame with one row per superstep (``Result.stats``;
        a list of dicts works too).  Columns used: ``superstep`` (x; the row
        number when absent), ``frontier`` and ``edges`` (top panel, "frontier
        size" and "edges touched"), ``time_s`` (bottom panel, in ms).
    title : the figure's title (wrapped onto two or more lines when long).
    startup_s : the run's start-up seconds (``Result.phases["startup_s"]``): said in a note, since
        no superstep's time includes it.

    A panel whose columns are missing says "no <column> recorded"; a frame
    with no rows gives a figure that says there were no supersteps.  A panel
    whose values span more than two decades gets a log y scale (symlog, linear
    below 1, when counts reach 0, so an empty last frontier still shows).
    """
    from matplotlib.ticker import MaxNLocator  # noqa: PLC0415

    df = _frame(stats)
    fig = _figure_class()(figsize=(7.5, 5.5), dpi=110, layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    fig.suptitle(_wrap(str(title)) if title is not None else "", fontsize=11)
    top.set_ylabel("frontier size")
    bottom.set_ylabel("time per superstep (ms)")
    bottom.set_xlabel("superstep")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)

    if len(df) == 0:
        _say(top, "no supersteps recorded (0 supersteps)")
        _say(bottom, "no supersteps recorded")
        for ax in (top, bottom):
            ax.set_yticks([])
        bottom.set_xticks([])
        return fig

    x = _column(df, "superstep")
    if x is None:
        x = np.arange(len(df), dtype=np.float64)
    style = dict(marker="o", markersize=3) if len(df) <= MARKERS_UP_TO else {}
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))

    # top panel: frontier (and edges touched)
    frontier, edges = _column(df, "frontier"), _column(df, "edges")
    drawn = []
    if frontier is not None:
        top.plot(x, frontier, label="frontier size", color="C0", zorder=3, **style)
        drawn.append(frontier)
    if edges is not None:
        top.plot(x, edges, label="edges touched", color="C1", **style)
        drawn.append(edges)
    if not drawn:
        _say(top, "no frontier recorded")
        top.set_yticks([])
    else:
        if frontier is None:  # the one line is edges touched: say so on the axis
            top.set_ylabel("edges touched")
            _say(top, "no frontier recorded", where="corner")
        if _wide(*drawn):
            if any(np.any(a == 0) for a in drawn):  # counts that reach 0 (the last frontier): keep them in view
                top.set_yscale("symlog", linthresh=1, linscale=0.3)
                top.set_ylim(bottom=0)
            else:
                top.set_yscale("log", nonpositive="mask")
        if len(drawn) == 2:
            top.legend(loc="best", fontsize=8)

    # bottom panel: time per superstep
    t = _column(df, "time_s")
    if t is None:
        _say(bottom, "no time_s recorded")
        bottom.set_yticks([])
    else:
        ms = t * 1e3
        bottom.plot(x, ms, color="C2", label="time per superstep", **style)
        if _wide(ms):
            bottom.set_yscale("log", nonpositive="mask")
        finite = np.isfinite(ms)
        if finite.any():
            from .display import fmt_seconds, plural  # noqa: PLC0415

            note = f"total {fmt_seconds(np.nansum(t))} over {plural(int(finite.sum()), 'superstep')}"
            if startup_s:
                note += f"\nstart-up {fmt_seconds(startup_s)} (kernels loaded or compiled) not included"
            _say(bottom, note, where="corner")
    if np.all(np.isfinite(x)) and len(x):
        lo, hi = float(np.min(x)), float(np.max(x))
        if lo == hi:
            bottom.set_xlim(lo - 1, hi + 1)
    return fig


def save_superstep_plot(stats, path, title, startup_s=None):
    """Write :func:`superstep_figure` of ``stats`` as a PNG at ``path``; returns the Path.

    Written whole or not at all: to a temporary file in the same folder, then
    moved over ``path`` (an existing file is replaced).  The folder is made
    when missing.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = superstep_figure(stats, title, startup_s)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as f:
            fig.savefig(f, format="png", dpi=110)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


__all__ = ["superstep_figure", "save_superstep_plot"]

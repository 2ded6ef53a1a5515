"""Print benchmark figures as a table, each anchor beside the figure as a ratio."""

from __future__ import annotations


def _bytes(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(b) < 1024 or unit == "GiB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{b} B"
        b /= 1024
    return str(b)


#: issue 5's device-memory budget for a BFS on one GPU (graph included)
BUDGET_PER_ARC, BUDGET_PER_VERTEX = 12, 16


def rate(x) -> str:
    """A rate for the reports: one decimal from 10 up, else three significant digits, so that a
    slow run on a small graph (a busy machine) never reads as 0.000."""
    return f"{x:.1f}" if x >= 10 or x != x else f"{x:.3g}"


def format_report(fig: dict) -> str:
    lines = [
        f"bfs on {fig['graph']}: {fig['vertices']:,} vertices, {fig['edges']:,} edges, "
        f"backend {fig['backend']}, source {fig['source']}, direction {fig['direction']}",
        f"  time        {fig['time_ms']:10.3f} ms   (median of {fig['repeat']}, min {fig['time_ms_min']:.3f} ms, warm-up excluded)",
        f"  MTEPS       {rate(fig['mteps']):>10}      ({fig['traversed_edges']:,} edges traversed)",
        f"  supersteps  {fig['supersteps']:10d}      ({fig['directions']}; {fig['per_superstep_ms']:.3f} ms each)",
    ]
    if fig.get("peak_run_bytes") is not None:
        lines.append(f"  memory      {_bytes(fig['peak_run_bytes']):>10}    peak during runs; graph {_bytes(fig['graph_bytes'])}")
        if fig.get("first_run_bytes") is not None:
            lines.append(f"  first run   {_bytes(fig['first_run_bytes']):>10}    graph + peak of the warm-up run "
                         f"(CSC build and buffers included)")
        if fig.get("arcs"):
            total = max(fig["peak_run_bytes"] + fig["graph_bytes"], fig.get("first_run_bytes") or 0)
            budget = BUDGET_PER_ARC * fig["arcs"] + BUDGET_PER_VERTEX * fig["vertices"]
            per = f"  per arc     {total / fig['arcs']:10.2f} B    graph + run peak per stored arc (the larger of the first and later runs)"
            if fig["backend"] == "cupy":  # issue 5's budget is for one GPU
                per += (f"; budget {BUDGET_PER_ARC} B/arc + {BUDGET_PER_VERTEX} B/vertex = {_bytes(budget)}: "
                        f"{'within' if total <= budget else 'over'} ({total / budget:.2f}x)")
            lines.append(per)
    notes = fig.get("anchor_notes", {})
    for name, ms in fig.get("anchors", {}).items():
        if ms is None:
            lines.append(f"  anchor      {'-':>10}      {name}: {notes.get(name, '')}")
            continue
        ratio = ms / fig["time_ms"] if fig["time_ms"] else float("nan")
        note = f" ({notes[name]})" if notes.get(name) else ""
        lines.append(f"  anchor      {ms:10.3f} ms   {name}: dgraph is {ratio:.2f}x its speed{note}")
    return "\n".join(lines)

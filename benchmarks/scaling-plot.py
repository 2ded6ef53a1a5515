"""The scaling plot of docs/BENCHMARKS.md: speed-up of P GPUs over 1 per algorithm, scale and P.

Usage: python3 benchmarks/scaling-plot.py docs/scaling.png [--title TEXT] FIGURES.json [FIGURES.json ...]

Reads the JSON figures of spmd-profile.py (each: algorithm, scale, partitions, one_gpu_ms,
many_gpu_ms; for the same algorithm, scale and P a later file's figure replaces an earlier one's)
and draws one group of bars per algorithm, a bar per (scale, P), with 1x and each P's linear
speed-up marked.
"""
import json
import sys


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, paths = sys.argv[1], sys.argv[2:]
    title = "dgraph spmd on H200s (NCCL)"
    if paths[:1] == ["--title"]:
        title, paths = paths[1], paths[2:]
    latest = {}
    for path in paths:
        for f in json.load(open(path)):
            latest[(f["algorithm"], f["scale"], f["partitions"])] = f
    figs = list(latest.values())
    algos = [a for a in ("bfs", "sssp", "pagerank", "wcc", "cdlp") if any(f["algorithm"] == a for f in figs)]
    series = sorted({(f["partitions"], f["scale"]) for f in figs})
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    for i, (p, scale) in enumerate(series):
        xs, ys = [], []
        for j, a in enumerate(algos):
            hit = latest.get((a, scale, p))
            if hit:
                xs.append(j + (i - (len(series) - 1) / 2) * width)
                ys.append(hit["one_gpu_ms"] / hit["many_gpu_ms"])
        bars = ax.bar(xs, ys, width, label=f"rmat{scale}, {p} GPUs")
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.axhline(1.0, color="grey", lw=0.8)
    for p in sorted({p for p, _ in series}):
        ax.axhline(p, color="grey", lw=0.8, ls="--")
        ax.text(len(algos) - 0.5, p, f" linear ({p}x)", va="center", fontsize=8)
    ax.set_xticks(range(len(algos)), [a.upper() if a != "pagerank" else "PageRank" for a in algos])
    ax.set_ylabel("speed-up over 1 GPU (same call)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()

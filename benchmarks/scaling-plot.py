"""The scaling plot of docs/BENCHMARKS.md: speed-up of 2 GPUs over 1 per algorithm and scale.

Usage: python3 benchmarks/scaling-plot.py docs/scaling.png docs/bench-data/2026-11-26/profile*.json

Reads the JSON figures of spmd-profile.py (each: algorithm, scale, partitions, one_gpu_ms,
many_gpu_ms) and draws one group of bars per algorithm, a bar per scale, with the linear
speed-up (the partition count) and 1x marked.
"""
import json
import sys


def main():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out, paths = sys.argv[1], sys.argv[2:]
    figs = [f for p in paths for f in json.load(open(p))]
    algos = [a for a in ("bfs", "sssp", "pagerank", "wcc", "cdlp") if any(f["algorithm"] == a for f in figs)]
    scales = sorted({f["scale"] for f in figs})
    p = max(f["partitions"] for f in figs)
    width = 0.8 / len(scales)
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for i, scale in enumerate(scales):
        xs, ys = [], []
        for j, a in enumerate(algos):
            hit = [f for f in figs if f["algorithm"] == a and f["scale"] == scale]
            if hit:
                xs.append(j + (i - (len(scales) - 1) / 2) * width)
                ys.append(hit[0]["one_gpu_ms"] / hit[0]["many_gpu_ms"])
        bars = ax.bar(xs, ys, width, label=f"rmat{scale}")
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.axhline(p, color="grey", lw=0.8, ls="--")
    ax.text(len(algos) - 0.5, p, f" linear ({p}x)", va="center", fontsize=8)
    ax.set_xticks(range(len(algos)), [a.upper() if a != "pagerank" else "PageRank" for a in algos])
    ax.set_ylabel(f"speed-up, {p} GPUs over 1 (same call)")
    ax.set_title(f"dgraph spmd on {p} x H200 (NCCL), 2026-11-26", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()

"""Digest of an ncu ``--page raw --csv`` report: for the longest launches of each kernel, the time,
the throughputs (SM, L1, L2, DRAM as % of peak), achieved occupancy, registers and the warp stall
reasons (cycles per issued instruction), largest first.

    ncu --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
        --page raw --csv -k regex:NAME python3 SCRIPT ... > raw.csv
    python3 benchmarks/ncu-digest.py raw.csv [launches per kernel, default 3]
"""
import csv
import sys

rows = [r for r in csv.reader(open(sys.argv[1])) if r]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 3
head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
names, units, data = rows[head], rows[head + 1], rows[head + 2:]
col = {n: i for i, n in enumerate(names)}


def num(r, name):
    try:
        return float(r[col[name]].replace(",", ""))
    except (KeyError, ValueError, IndexError):
        return float("nan")


WANT = [("time us", "gpu__time_duration.sum"),
        ("SM %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        ("L1 %", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
        ("L2 %", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
        ("DRAM %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
        ("occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
        ("registers", "launch__registers_per_thread"),
        ("grid", "launch__grid_size"),
        ("cycles/issue", "smsp__average_warp_latency_per_inst_issued.ratio")]
stall = [n for n in names if n.startswith("smsp__average_warps_issue_stalled_") and n.endswith("_per_issue_active.ratio")]
by_kernel = {}
for r in data:
    if len(r) != len(names):
        continue
    by_kernel.setdefault(r[col["Kernel Name"]].split("(")[0], []).append(r)
for k, rs in by_kernel.items():
    rs.sort(key=lambda r: -num(r, "gpu__time_duration.sum"))
    unit = units[col["gpu__time_duration.sum"]] if "gpu__time_duration.sum" in col else ""
    print(f"== {k}: {len(rs)} launches, total {sum(num(r, 'gpu__time_duration.sum') for r in rs):,.0f} {unit}")
    for r in rs[:top]:
        print("   " + ", ".join(f"{label} {num(r, m):,.1f}" for label, m in WANT if m in col))
        st = sorted(((num(r, n), n[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")])
                     for n in stall), reverse=True)
        print("   stalls: " + ", ".join(f"{n} {v:.2f}" for v, n in st[:7] if v == v and v > 0.05))

"""Sum an ncu --csv report (gpu__time_duration.sum) per kernel name: count and total microseconds.

    python3 benchmarks/ncu-sum.py report.csv
"""
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = None
tot = collections.defaultdict(float); cnt = collections.Counter()
for row in rows:
    if "Kernel Name" in row and "Metric Value" in row:
        hdr = row; continue
    if hdr and len(row) == len(hdr):
        d = dict(zip(hdr, row))
        if d.get("Metric Name") == "gpu__time_duration.sum":
            v = float(d["Metric Value"].replace(",", ""))
            unit = d.get("Metric Unit", "")
            us = v / 1e3 if unit == "nsecond" else v * 1e3 if unit == "msecond" else v
            name = d["Kernel Name"].split("(")[0][:60]
            tot[name] += us; cnt[name] += 1
for k, v in sorted(tot.items(), key=lambda kv: -kv[1]):
    print(f"{k:60s} {cnt[k]:4d} {v:10.1f} us")
print("total", sum(tot.values()), "us over", sum(cnt.values()), "kernels")

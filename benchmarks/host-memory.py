"""Host memory of reading and building a graph: the figures behind dgraph/backend/device_memory.py's
host estimates (issue 21). from_edges and generate() by tracemalloc (numpy reports to it); a text
parse by the peak RSS of a fresh process (pyarrow's pool is not traced). Prints estimate / peak:
every ratio must be >= 1 (the estimate is an upper bound)."""

import os
import subprocess
import sys
import tempfile
import tracemalloc

import numpy as np

import dgraph
from dgraph.backend import device_memory as dm
from dgraph.generators import _module
from dgraph.graph.build import from_edges


def peak(fn):
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    p = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return out, p


rng = np.random.default_rng(0)
m = 2_000_000
print("from_edges (inputs already made):")
for n, renumber in ((100_000, False), (4_000_000, False), (2 ** 40, True)):
    for directed in (False, True):
        for weighted in (False, True):
            s, d = rng.integers(0, n, m), rng.integers(0, n, m)
            w = rng.random(m) if weighted else None
            G, p = peak(lambda: from_edges(s, d, w, directed=directed))
            est = dm.build_bytes(m, directed, weighted, G.num_vertices if not renumber else 2 * m,
                                 renumber=renumber, device="host")
            print(f"  ids<{n:.0e} renumber={renumber} directed={directed} weighted={weighted}: "
                  f"{p / m:.1f} B/edge, estimate {est / m:.1f} ({est / p:.2f}x)")
G, p = peak(lambda: from_edges(np.array([0]), np.array([1]), num_vertices=10_000_000))
print(f"  10M vertices, 1 edge: {p / 1e7:.1f} B/vertex (estimate {dm.VERTEX_BYTES})")

print("generate() (numpy; the estimate of generators/__init__.py):")
for kind, kw in [("rmat", dict(scale=18)), ("rmat", dict(scale=18, directed=True)),
                 ("rmat", dict(scale=18, weighted=True)), ("grid", dict(rows=1000, cols=1000)),
                 ("uniform", dict(num_vertices=2 ** 18))]:
    G, pk = peak(lambda: dgraph.generate(kind, **kw))
    mod = _module(kind)
    p = mod.parse({k: v for k, v in kw.items() if k not in ("directed", "weighted")})
    n, mm = mod.size(p)
    w, d = kw.get("weighted", False), kw.get("directed", False)
    est = mm * (8 + (8 if w else 0)) + (24 * min(mm, 1 << 18) if w else 0) + mod.scratch_bytes(p, 4) + \
        dm.build_bytes(mm, d, w, n, device="host")
    print(f"  {kind} {kw}: peak {pk / 2 ** 20:.0f} MiB, estimate {est / 2 ** 20:.0f} MiB ({est / pk:.2f}x)")

PARSE = r'''
import sys
import dgraph
from dgraph.io.text import Text
from dgraph.io.table import parse_table, parse_bytes
t = Text.open(sys.argv[1]).skip_comments()
B, L = len(t.data), t.data.count(b"\n")
def hwm():
    return next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM"))
open("/proc/self/clear_refs", "w").write("5")
base = hwm()
parse_table(t, " ")
p = hwm() - base
est = parse_bytes(B, L, 2)
print(f"  {sys.argv[2]}: {p / L:.0f} B/line, estimate {est / L:.0f} ({est / p:.2f}x)")
'''
print("text parse (peak RSS of a fresh process, 2,000,000 lines):")
with tempfile.TemporaryDirectory() as tmp:
    s, d = rng.integers(0, 10 ** 6, m), rng.integers(0, 10 ** 6, m)
    for name, fmt in (("integers, pyarrow", "{} {}\n"), ("integers, pandas (runs of spaces)", "{}  {}\n")):
        path = os.path.join(tmp, "g.el")
        with open(path, "w") as f:
            f.write("".join(fmt.format(a, b) for a, b in zip(s.tolist(), d.tolist())))
        subprocess.run([sys.executable, "-c", PARSE, path, name], check=True)

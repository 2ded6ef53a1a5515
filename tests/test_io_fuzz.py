"""Issue 21: fuzz every reader with >= 1,000 mutated files (slow; ``-m slow``).

Each file is read in a worker process under RLIMIT_AS (tests/fuzz_io.py) with a 10 s limit, and
compared with an independent parse of the documented rules.  The counts are printed (``-s``) and
must show no raw exception, no hang, no crash, no wrong value and no false error.
"""

import json
import os
import random
from collections import Counter

import pytest

from fuzz_io import (RefGraph, Refused, Worker, base_edgelists, base_graphalytics, base_mtx, big_edgelist, gz, mutate,
                     ref_edgelist, ref_graphalytics, ref_mtx, same, write_bomb)

pytestmark = pytest.mark.slow

N = int(os.environ.get("DGRAPH_FUZZ_N", "1000"))        # files per reader
SEED = int(os.environ.get("DGRAPH_FUZZ_SEED", "0"))    # another seed, other files
LARGE = 5_000_000  # a graph the reference built this big may be refused as too large for the worker


def tally(counts, problems, name, ref, got, case):
    """Sort one outcome into ``counts``; anything wrong goes to ``problems``."""
    status = got["status"]
    if status in ("raw", "hang", "crash"):
        counts[status] += 1
        problems.append((name, status, got.get("cls"), got.get("msg", "")[-600:], case))
        return
    if isinstance(ref, Refused):
        if status == "ok":
            counts["accepted an invalid file"] += 1
            problems.append((name, "accepted", str(ref), "", case))
        else:
            counts["refused, as the reference"] += 1
            if got["line"] is None:
                counts["  (error without a line)"] += 1
                NO_LINE.append(got["msg"])
        return
    if status == "error":
        big = ref.size() > LARGE
        if big and (got["cls"] == "GraphTooLargeError" or "3e9" in got["msg"]):
            counts["too large for the worker (GraphTooLargeError)"] += 1
            return
        counts["false error"] += 1
        problems.append((name, "false error", got["cls"], got["msg"], case))
        return
    diff = same(ref, got)
    if diff:
        counts["wrong value"] += 1
        problems.append((name, "wrong value", diff, "", case))
    else:
        counts["read, same graph as the reference"] += 1


NO_LINE = []


def reference(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Refused as exc:
        return exc


def check_report(kind, counts, problems):
    print(f"\n[fuzz {kind}] {sum(v for k, v in counts.items() if not k.startswith('  '))} files: "
          + json.dumps(dict(counts), sort_keys=True))
    for msg in sorted({m.split(": ", 1)[-1][:150] for m in NO_LINE})[:12]:
        print("  no line:", msg)
    NO_LINE.clear()
    for p in problems[:10]:
        print("  PROBLEM", p[0], p[1], p[2])
        print("   ", str(p[3])[-1200:].replace("\n", "\n    "))
        print("    input:", repr(p[4])[:400])
    bad = {k: v for k, v in counts.items() if k in ("raw", "hang", "crash", "accepted an invalid file",
                                                     "false error", "wrong value")}
    assert not bad, (bad, problems[:5])


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    w.warm()
    yield w
    w.stop()


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_issue21_fuzz_edge_lists_and_csv(tmp_path, worker, compressed):
    rng = random.Random(SEED * 10000 + 2100 + compressed)
    bases = base_edgelists(rng)
    counts, problems = Counter(), []
    for i in range(N):
        text, ext = big_edgelist(rng) if i % 100 == 99 else rng.choice(bases)  # 1 in 100: 300,000 lines
        data = mutate(rng, text) if len(text) < 10 ** 5 else mutate_numbers_once(rng, text)
        path = tmp_path / f"f{i}{ext}{'.gz' if compressed else ''}"
        raw = gz(data) if compressed else data
        if compressed and rng.random() < 0.1:  # the compressed stream itself damaged or cut
            b = bytearray(raw)
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            raw = bytes(b[:rng.randrange(len(b) + 1)]) if rng.random() < 0.5 else bytes(b)
            path.write_bytes(raw)
            got = worker.read(path)
            counts["damaged .gz (values not compared)"] += 1
            if got["status"] in ("raw", "hang", "crash"):
                tally(counts, problems, path.name, None, got, raw[:200])
            continue
        path.write_bytes(raw)
        kw = {}
        if rng.random() < 0.15:
            kw["directed"] = True
        if rng.random() < 0.1:
            kw["ids"] = "str"
        ref = reference(ref_edgelist, data, ext, **kw)
        tally(counts, problems, path.name, ref, worker.read(path, **kw), data[:300])
        path.unlink()
    if compressed:  # the issue's case: a small .gz holding 2 GiB of lines
        bomb = tmp_path / "bomb.el.gz"
        write_bomb(bomb)
        got = worker.read(bomb)
        counts[f"2 GiB bomb ({bomb.stat().st_size:,} bytes): {got['status']} {got.get('cls')}"] += 1
        if got["status"] != "error" or got["cls"] != "GraphTooLargeError":
            problems.append(("bomb", got["status"], got.get("cls"), got.get("msg", ""), ""))
            counts["raw" if got["status"] != "error" else "false error"] += 1
    check_report("edge lists" + (" .gz" if compressed else ""), counts, problems)


def mutate_numbers_once(rng, text):
    """One number of a big file written another way (the reference still decides)."""
    from fuzz_io import NUMERIC

    lines = text.split("\n")
    i = rng.randrange(len(lines) - 1)
    fields = lines[i].split(" ")
    fields[rng.randrange(len(fields))] = rng.choice(NUMERIC + ["x", "1.5", "-1"])
    lines[i] = " ".join(fields)
    return "\n".join(lines).encode()


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_issue21_fuzz_matrix_market(tmp_path, worker, compressed):
    rng = random.Random(SEED * 10000 + 2200 + compressed)
    bases = base_mtx(rng)
    counts, problems = Counter(), []
    for i in range(N):
        text, _ = rng.choice(bases)
        data = mutate(rng, text)
        path = tmp_path / f"m{i}.mtx{'.gz' if compressed else ''}"
        path.write_bytes(gz(data) if compressed else data)
        ref = reference(ref_mtx, data)
        tally(counts, problems, path.name, ref, worker.read(path), data[:300])
        path.unlink()
    check_report("Matrix Market" + (" .gz" if compressed else ""), counts, problems)


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_issue21_fuzz_graphalytics(tmp_path, worker, compressed):
    rng = random.Random(SEED * 10000 + 2300 + compressed)
    bases = base_graphalytics(rng)
    counts, problems = Counter(), []
    z = ".gz" if compressed else ""
    for i in range(N):
        v, e, props = rng.choice(bases)
        vb, eb = v.encode(), e.encode()
        which = rng.random()
        if which < 0.4:
            vb = mutate(rng, v)
        elif which < 0.9:
            eb = mutate(rng, e)
        else:
            vb, eb = mutate(rng, v), mutate(rng, e)
        d = tmp_path / f"g{i}"
        d.mkdir()
        (d / f"g.v{z}").write_bytes(gz(vb) if compressed else vb)
        (d / f"g.e{z}").write_bytes(gz(eb) if compressed else eb)
        (d / "g.properties").write_text(props)
        pdict = {"directed": props.split("directed = ")[1].split("\n")[0]}
        if "edge-properties" in props:
            pdict["names"] = "weight"
        ref = reference(ref_graphalytics, vb, eb, pdict)
        tally(counts, problems, f"g{i}", ref, worker.read(d / f"g.e{z}"), (vb[:150], eb[:150]))
    check_report("Graphalytics .v/.e" + (" .gz" if compressed else ""), counts, problems)


# -- Parquet: typed tables (values compared) and damaged bytes (no crash, no raw error) ---------------
INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]
ID_POOL = [0, 1, 2, 3, 7, 10, 99, -1, -5, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1, -2 ** 63]
FLOAT_ID_POOL = [0.0, 1.0, 2.0, 5.0, 1.5, -3.0, 2.0 ** 53, 2.0 ** 62, 2.0 ** 63, -2.0 ** 63, 1e19, float("nan"),
                 float("inf"), -0.0]
WEIGHT_POOL = [0, 1, 2, 5, -7, 2 ** 62, 2 ** 63 - 1, 0.5, -2.25, 1e300, float("nan"), float("inf")]


def _fits(value, t):
    import numpy as np

    info = np.iinfo(t)
    return info.min <= value <= info.max


def _random_table(rng):
    """A random edge table: (columns dict of (pyarrow type name, values), the reader's options)."""
    m = rng.choice([0, 1, 3, 8, 20])
    kinds = rng.choice([("int", "int"), ("int", "int"), ("float", "float"), ("str", "str"), ("int", "str"),
                        ("dict", "dict"), ("bool", "int")])
    cols = {}
    for name, kind in zip(("src", "dst"), kinds):
        if kind == "int":
            t = rng.choice(INT_TYPES)
            vals = [v for v in (rng.choice(ID_POOL) if rng.random() < 0.15 else rng.randint(0, 30) for _ in range(m))]
            vals = [v if _fits(v, t) else rng.randint(0, 100) for v in vals]
            if t == "uint64" and rng.random() < 0.3 and m:
                vals[rng.randrange(m)] = 2 ** 64 - 1
        elif kind == "float":
            t = rng.choice(["float32", "float64"])
            vals = [rng.choice(FLOAT_ID_POOL) if rng.random() < 0.2 else float(rng.randint(0, 30)) for _ in range(m)]
            if t == "float32":
                vals = [v if abs(v) < 2 ** 24 or v != v else float(rng.randint(0, 9)) for v in vals]
        elif kind in ("str", "dict"):
            t = "string" if kind == "str" else "dict"
            vals = [rng.choice(["a", "b", "c", "dd", "7", "x y", "\u00e9"]) for _ in range(m)]
        else:
            t, vals = "bool", [rng.random() < 0.5 for _ in range(m)]
        if m and rng.random() < 0.08:
            vals[rng.randrange(m)] = None
        cols[name] = (t, vals)
    if rng.random() < 0.6:
        t = rng.choice(["int64", "uint64", "float64", "float32", "int8", "bool", "string"])
        if t == "bool":
            vals = [True] * m
        elif t == "string":
            vals = ["1"] * m
        elif t.startswith("float"):
            vals = [rng.choice(WEIGHT_POOL) if rng.random() < 0.2 else rng.uniform(-5, 5) for _ in range(m)]
            vals = [float(v) for v in vals]
            if t == "float32":
                vals = [v if abs(v) < 1e30 or v != v or abs(v) == float("inf") else 1.0 for v in vals]
        else:
            vals = [rng.choice(WEIGHT_POOL) if rng.random() < 0.2 else rng.randint(-50, 50) for _ in range(m)]
            vals = [v if isinstance(v, int) and _fits(v, t) else rng.randint(0, 9) for v in vals]
            if t == "uint64" and m and rng.random() < 0.4:
                vals[rng.randrange(m)] = 2 ** 64 - 1
        if m and rng.random() < 0.05:
            vals[rng.randrange(m)] = None
        cols["weight"] = (t, vals)
    return cols


def _arrow(cols):
    import pyarrow as pa

    arrays = {}
    for name, (t, vals) in cols.items():
        if t == "dict":
            arrays[name] = pa.array(vals, type=pa.string()).dictionary_encode()
        elif t == "bool":
            arrays[name] = pa.array(vals, type=pa.bool_())
        else:
            arrays[name] = pa.array(vals, type=getattr(pa, t)())
    return pa.table(arrays)


def _ref_parquet(cols):
    """The documented rule (dgraph/io/parquet.py) from the Python values."""
    ids = []
    kinds = []
    for name in ("src", "dst"):
        t, vals = cols[name]
        if any(v is None for v in vals):
            raise Refused(None, "null id")
        if t == "bool":
            raise Refused(None, "bool ids")
        if t in ("string", "dict"):
            kinds.append("str")
            ids.append(list(vals))
            continue
        kinds.append("int")
        out = []
        for v in vals:
            if isinstance(v, float):
                if v != v or v in (float("inf"), float("-inf")) or v != int(v) or not -2.0 ** 63 <= v < 2.0 ** 63:
                    raise Refused(None, "float id")
                v = int(v)
            if v > 2 ** 63 - 1:
                raise Refused(None, "uint64 id")
            out.append(v)
        ids.append(out)
    if kinds[0] != kinds[1]:
        raise Refused(None, "mixed")
    w, wkind, weighted = None, None, "weight" in cols
    if weighted:
        t, vals = cols["weight"]
        if any(v is None for v in vals):
            raise Refused(None, "null weight")
        if t in ("bool", "string"):
            raise Refused(None, "weight type")
        if t.startswith("float"):
            if any(v != v or abs(v) == float("inf") for v in vals):
                raise Refused(None, "weight not finite")
            w, wkind = [float(v) for v in vals], "f"
            if t == "float32":
                import numpy as np

                w = [float(np.float32(v)) for v in vals]
        else:
            if any(v > 2 ** 63 - 1 for v in vals):
                raise Refused(None, "uint64 weight")
            w, wkind = list(vals), "i"
    if t_is_float32(cols, "src"):
        import numpy as np

        ids = [[int(np.float32(v)) for v in col] for col in ids]
    return RefGraph(ids[0], ids[1], w, wkind, directed=False, weighted=weighted)


def t_is_float32(cols, name):
    return cols[name][0] == "float32"


def test_issue21_fuzz_parquet(tmp_path, worker):
    import pyarrow.parquet as pq

    rng = random.Random(SEED * 10000 + 2400)
    counts, problems = Counter(), []
    good = []
    for i in range(N):
        path = tmp_path / f"p{i}.parquet"
        if good and rng.random() < 0.3:  # damaged bytes of a valid file: no crash, no raw error
            raw = bytearray(rng.choice(good))
            for _ in range(rng.randint(1, 12)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            if rng.random() < 0.3:
                raw = raw[:rng.randrange(len(raw))]
            path.write_bytes(bytes(raw))
            got = worker.read(path)
            counts["damaged bytes (values not compared)"] += 1
            if got["status"] in ("raw", "hang", "crash"):
                tally(counts, problems, path.name, None, got, "damaged")
            continue
        cols = _random_table(rng)
        pq.write_table(_arrow(cols), path, compression=rng.choice(["none", "snappy", "zstd"]),
                       row_group_size=rng.choice([2, 5, 1000]))
        if len(good) < 30:
            good.append(path.read_bytes())
        ref = reference(_ref_parquet, cols)
        tally(counts, problems, path.name, ref, worker.read(path), {k: (t, v[:6]) for k, (t, v) in cols.items()})
        path.unlink()
    check_report("Parquet", counts, problems)

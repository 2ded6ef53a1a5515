"""Fuzzing the readers (issue 21): mutated files, read in a worker process under a memory limit and a
time limit, and compared with an independent parse of the documented rules (README "Vertex ids",
dgraph/io/columns.py, table.py, text.py).

The reference parsers here are plain Python over lines, written from the rules, not from the
readers' code paths (pyarrow, pandas, the error-path scans).  For every mutated file:

- dgraph raised something that is not a DGraphError: a raw exception;
- the worker died (a signal, a C++ abort) or gave no answer in ``TIMEOUT`` s: a crash or a hang;
- both parsed it: the graphs must be equal (vertex set, edges, weights and their dtype kind);
- the reference refuses it and dgraph reads it, or the other way round: a wrong value or a false
  error (a GraphTooLargeError counts as an answer where the graph the reference built is large).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import select
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEM_LIMIT = 4 << 30      # RLIMIT_AS of the worker: python, numpy, pyarrow, pandas take ~1.7 GB of it
TIMEOUT = 10.0
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT_RE = re.compile(r"[+-]?[0-9]+\Z")
NUM_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
HEADER_NAMES = {"src", "source", "from", "u", "dst", "dest", "destination", "target", "to", "v",
                "weight", "w", "cost", "value", "length", "distance", "node1", "node2", "head", "tail",
                "src_id", "dst_id", "source_id", "target_id", "from_id", "to_id"}
WS = " \t"


class Refused(Exception):
    """The reference refuses the file; ``line`` where (or None)."""

    def __init__(self, line, why):
        super().__init__(f"{line}: {why}")
        self.line = line


# -- the worker ------------------------------------------------------------------------------------
WORKER = r'''
import json, resource, sys, traceback
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import numpy as np
import dgraph
from dgraph.errors import DGraphError

def plain(v):
    return v.item() if hasattr(v, "item") else v

for line in sys.stdin:
    req = json.loads(line)
    try:
        G = dgraph.read(req["path"], **req["kw"])
        s, d, w = G.edges()
        res = {"status": "ok", "directed": G.directed, "weighted": G.weighted,
               "identity_n": G.num_vertices if G.ids.identity else None,
               "labels": None if G.ids.identity else [plain(v) for v in G.vertex_ids()],
               "edges": [[plain(a), plain(b)] for a, b in zip(s, d)],
               "weights": None if w is None else w.tolist(), "wkind": None if w is None else w.dtype.kind}
    except DGraphError as e:
        res = {"status": "error", "cls": type(e).__name__, "msg": str(e)[:300], "line": getattr(e, "line", None)}
    except BaseException as e:  # noqa: BLE001 - what the fuzz counts
        res = {"status": "raw", "cls": type(e).__name__, "msg": traceback.format_exc()[-1500:]}
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
'''


class Worker:
    """A long-lived reader process under RLIMIT_AS; restarted after a crash or a hang."""

    def __init__(self, limit=MEM_LIMIT, timeout=TIMEOUT):
        self.limit, self.timeout, self.proc = limit, timeout, None

    def _start(self):
        env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(self.limit)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)

    def read(self, path, **kw):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps({"path": str(path), "kw": kw}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.stop()
            return {"status": "hang"}
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait(10)
            self.proc = None
            return {"status": "crash", "rc": rc}
        return json.loads(line)

    def warm(self):
        """Start the worker and let it import dgraph (not counted in the first file's time)."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps({"path": "/nonexistent", "kw": {}}) + "\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


# -- the reference: bytes -> lines -------------------------------------------------------------------
def ref_lines(data: bytes):
    """``[(line number, text)]``: CR line ends, BOM and NUL by the rules; text keeps bad UTF-8 as
    surrogates (checked only where it is data)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
        bom = True
    else:
        bom = False
    if re.search(rb"\r(?!\n)", data):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"\0" in data:
        raise Refused(data[:data.index(b"\0")].count(b"\n") + 1, "NUL")
    del bom
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()
    return [(i + 1, p.rstrip(b"\r").decode("utf-8", "surrogateescape")) for i, p in enumerate(parts)]


def strip_first_bom(lines, start=0):
    """The reader skips a BOM where the data starts: at the first line from ``start`` that is not
    blank or a comment."""
    for k in range(start, len(lines)):
        no, t = lines[k]
        if t.strip(" \t\r\n") and not (t.startswith("%") or t.lstrip(WS).startswith("#")):
            if t.startswith("\ufeff"):
                lines = lines[:k] + [(no, t[1:])] + lines[k + 1:]
            return lines, k
    return lines, len(lines)


def valid_utf8(s):
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def csv_fields(line):
    """Comma fields (quotes as in RFC 4180, one line), '#' outside quotes ends the line; None when the
    line is only a comment."""
    fields, i, n = [], 0, len(line)
    cur = []
    state = "start"
    while i <= n:
        c = line[i] if i < n else None
        if state == "start":
            if c is not None and c in WS:
                i += 1
                continue
            if c == '"':
                state, i = "quoted", i + 1
                continue
            state = "plain"
            continue
        if state == "quoted":
            if c is None:
                raise ValueError("unclosed quote")
            if c == '"':
                if i + 1 < n and line[i + 1] == '"':
                    cur.append('"')
                    i += 2
                    continue
                state, i = "plain", i + 1
                continue
            cur.append(c)
            i += 1
            continue
        # plain
        if c is None or c == "," or c == "#":
            fields.append("".join(cur).strip(WS))
            cur = []
            if c == ",":
                state, i = "start", i + 1
                continue
            return fields
        cur.append(c)
        i += 1
    return fields


def data_rows(lines, sep):
    """``[(line number, fields)]`` of the data lines; Refused for bad UTF-8 or an unclosed quote."""
    rows = []
    for no, text in lines:
        if text.startswith("%"):
            continue
        if sep == ",":
            if not text.strip(WS) or text.lstrip(WS).startswith("#"):
                continue
            if '"' not in text:
                text = text.split("#", 1)[0]
                if not text.strip(WS):
                    continue
            if not valid_utf8(text.split("#", 1)[0] if '"' not in text else text):
                raise Refused(no, "utf8")
            try:
                fields = csv_fields(text)
            except ValueError:
                raise Refused(no, "quote") from None
        else:
            text = text.split("#", 1)[0]
            if not text.strip(WS):
                continue
            if not valid_utf8(text):
                raise Refused(no, "utf8")
            if sep == " ":
                fields = [f for f in re.split("[ \t]+", text) if f]
            else:
                fields = [f.strip(WS) for f in text.split("\t")]
        rows.append((no, fields))
    return rows


def is_number(tok):
    t = tok.strip(WS)
    return bool(NUM_RE.match(t)) and math.isfinite(float(t))


def int_like(tok):
    return bool(INT_RE.match(tok.strip(WS)))


def ids_of(columns, mode="auto"):
    """columns: [(rows [(line, token)])] in file order -> values (ints or strs), by the id rule."""
    if mode == "str":
        return [[t.strip(WS) for _, t in col] for col in columns]
    toks = [(no, t.strip(WS)) for col in columns for no, t in col]
    kinds = [int_like(t) for _, t in toks]
    if mode == "int" or all(kinds):
        out = []
        for col in columns:
            vals = []
            for no, t in col:
                t = t.strip(WS)
                if not int_like(t) or not INT64_MIN <= int(t) <= INT64_MAX:
                    raise Refused(no, "not an int64")
                vals.append(int(t))
            out.append(vals)
        return out
    if not any(kinds):
        return [[t.strip(WS) for _, t in col] for col in columns]
    raise Refused(None, "mixed ids")


def weights_of(rows, integer=False, real=False):
    """tokens -> (values, kind 'i' or 'f') by the weight rule."""
    toks = [(no, t.strip(WS)) for no, t in rows]
    for no, t in toks:
        if integer:
            if not int_like(t) or not INT64_MIN <= int(t) <= INT64_MAX:
                raise Refused(no, "weight not int64")
        elif not is_number(t):
            raise Refused(no, "weight not a finite number")
    if not real and all(int_like(t) and INT64_MIN <= int(t) <= INT64_MAX for _, t in toks):
        return [int(t) for _, t in toks], "i"
    return [float(t) for _, t in toks], "f"


class RefGraph:
    """What the reference built: vertices ('identity', n) or ('labels', set), edges {key: weight}."""

    def __init__(self, src, dst, weights, wkind, *, directed, weighted, vertices=None, num_vertices=None):
        self.directed, self.weighted, self.wkind = directed, weighted, wkind if weighted else None
        m = len(src)
        if vertices is not None:
            labels = sorted(set(vertices))
            if labels and all(isinstance(v, int) for v in labels) and labels == list(range(len(labels))):
                self.vertices = ("identity", len(labels))
            else:
                self.vertices = ("labels", labels)
        elif num_vertices is not None:
            self.vertices = ("identity", num_vertices)
        elif src and isinstance(src[0], str):
            self.vertices = ("labels", sorted(set(src) | set(dst)))
        else:
            lo = min(src + dst) if m else 0
            hi = max(src + dst) if m else -1
            if lo < 0 or hi + 1 > max(1 << 20, 8 * m):
                self.vertices = ("labels", sorted(set(src) | set(dst)))
            else:
                self.vertices = ("identity", hi + 1)
        self.edges = {}
        for i, (a, b) in enumerate(zip(src, dst)):
            key = (a, b) if directed else (min(a, b), max(a, b))
            w = weights[i] if weighted else None
            if key not in self.edges or (w is not None and w < self.edges[key]):
                self.edges[key] = w

    def size(self):
        return self.vertices[1] if self.vertices[0] == "identity" else len(self.vertices[1])


def same(ref: RefGraph, got: dict):
    """None when dgraph's answer is the reference's graph, else what differs."""
    if got["directed"] != ref.directed or got["weighted"] != ref.weighted:
        return f"directed/weighted {got['directed']}/{got['weighted']} vs {ref.directed}/{ref.weighted}"
    if ref.vertices[0] == "identity":
        if got["identity_n"] != ref.vertices[1]:
            return f"vertices: identity {ref.vertices[1]} expected, got {got['identity_n']} / labels"
    elif got["labels"] is None or got["labels"] != ref.vertices[1]:
        return f"vertices: labels expected {ref.vertices[1][:5]}..., got {(got['labels'] or [])[:5]} " \
               f"identity {got['identity_n']}"
    edges = {}
    for i, (a, b) in enumerate(got["edges"]):
        key = (a, b) if ref.directed else (min(a, b), max(a, b))
        edges[key] = got["weights"][i] if got["weights"] is not None else None
    if edges != ref.edges:
        diff = set(edges.items()) ^ set(ref.edges.items())
        return f"edges differ: {sorted(diff, key=repr)[:4]}"
    if ref.weighted and ref.edges and got["wkind"] != ref.wkind:
        return f"weight dtype {got['wkind']} vs {ref.wkind}"
    return None


# -- reference readers ---------------------------------------------------------------------------------
def ref_edgelist(data, ext, weighted=None, directed=False, ids="auto"):
    if (data[3:] if data.startswith(b"\xef\xbb\xbf") else data)[:14].lower() == b"%%matrixmarket":
        raise Refused(1, "mtx")
    lines, _ = strip_first_bom(ref_lines(data))
    sep = ","
    if ext != ".csv":
        first = next((t for _, t in lines if not t.startswith("%") and t.split("#", 1)[0].strip(WS)), None)
        sep = " "
        if first is not None:
            f = first.split("#", 1)[0]
            sep = "," if "," in f else ("\t" if "\t" in f.strip(WS) else " ")
    rows = data_rows(lines, sep)
    if weighted is None and ext == ".wel":
        weighted = True
    header = False
    if rows:
        first = rows[0][1]
        if first and not any(is_number(t) for t in first):
            if all(t.strip().lower() in HEADER_NAMES for t in first) or len(rows) > 1 and any(is_number(t) for t in rows[1][1][:2]):
                header = True
    names = None
    if rows and not 2 <= len(rows[0][1]) <= 3:
        raise Refused(rows[0][0], "fields")
    if header:
        names = rows[0][1]
        rows = rows[1:]
    if not rows:
        return RefGraph([], [], [], "f", directed=directed, weighted=bool(weighted))
    n_first = len(names) if header else len(rows[0][1])
    for no, fields in rows:
        if len(fields) != n_first or "" in fields:
            raise Refused(no, "field count / empty")
    if header and n_first != len(rows[0][1]):
        raise Refused(rows[0][0], "header width")
    wcol = None
    if header and "weight" in names:
        wcol = names.index("weight")
    elif n_first == 3:
        wcol = 2
    if weighted and wcol is None:
        raise Refused(None, "no weight column")
    use_w = wcol is not None if weighted is None else bool(weighted)
    src, dst = ids_of([[(no, f[0]) for no, f in rows], [(no, f[1]) for no, f in rows]], ids)
    w, kind = weights_of([(no, f[wcol]) for no, f in rows]) if use_w else (None, None)
    return RefGraph(src, dst, w, kind, directed=directed, weighted=use_w)


def ref_mtx(data, weighted=None):
    lines = ref_lines(data)
    if not lines:
        raise Refused(1, "header")
    tokens = lines[0][1].lower().split()
    if len(tokens) != 5 or tokens[0] != "%%matrixmarket" or tokens[1] != "matrix" or tokens[2] != "coordinate":
        raise Refused(1, "header")
    field, sym = tokens[3], tokens[4]
    if field == "double":
        field = "real"
    if field not in ("real", "integer", "pattern") or sym not in ("general", "symmetric"):
        raise Refused(1, "header")
    rest, _ = strip_first_bom(lines[1:])
    _, k = strip_first_bom(rest)  # the size line: the first data line once a BOM is gone
    rest, _ = strip_first_bom(rest, k + 1)
    size = None
    entries = []
    for no, text in rest:
        if text.startswith("%") or not text.split("#", 1)[0].strip(WS) or text.lstrip(WS).startswith("#"):
            continue
        if size is None:
            toks = text.split()
            if len(toks) != 3 or not all(int_like(t) and 0 <= int(t) <= INT64_MAX for t in toks):
                raise Refused(no, "size line")
            size = [int(t) for t in toks]
            continue
        text = text.split("#", 1)[0]
        if not text.strip(WS):
            continue
        if not valid_utf8(text):
            raise Refused(no, "utf8")
        entries.append((no, [f for f in re.split("[ \t]+", text) if f]))
    if size is None:
        raise Refused(None, "no size line")
    nrows, ncols, nnz = size
    nf = 2 if field == "pattern" else 3
    for no, f in entries:
        if len(f) != nf:
            raise Refused(no, "fields")
        for t, hi in ((f[0], nrows), (f[1], ncols)):
            if not int_like(t) or not 1 <= int(t) <= hi:
                raise Refused(no, "index")
    if len(entries) != nnz:
        raise Refused(None, "count")
    r = [int(f[0]) - 1 for _, f in entries]
    c = [int(f[1]) - 1 for _, f in entries]
    vals, kind = (None, None)
    if nf == 3:
        vals, kind = weights_of([(no, f[2]) for no, f in entries], integer=field == "integer", real=field == "real")
    if weighted and vals is None:
        raise Refused(None, "pattern")
    use_w = vals is not None and weighted is not False
    return RefGraph(r, c, vals, kind, directed=sym == "general", weighted=use_w, num_vertices=max(nrows, ncols))


def ref_graphalytics(vdata, edata, props, directed=None, weighted=None, ids="auto"):
    if directed is None:
        directed = {"true": True, "false": False}.get(props.get("directed"))
        if directed is None:
            raise Refused(None, "directed")
    if weighted is None and "names" in props:
        weighted = "weight" in [n.strip() for n in props["names"].split(",")]
    vrows = data_rows(strip_first_bom(ref_lines(vdata))[0], " ")
    for no, f in vrows:
        if len(f) != 1:
            raise Refused(no, "v fields")
    elines = strip_first_bom(ref_lines(edata))[0]
    first = next((t for _, t in elines if not t.startswith("%") and t.split("#", 1)[0].strip(WS)), None)
    sep = " "
    if first is not None:
        f = first.split("#", 1)[0]
        sep = "," if "," in f else ("\t" if "\t" in f.strip(WS) else " ")
    erows = data_rows(elines, sep)
    ncol = len(erows[0][1]) if erows else 0
    for no, f in erows:
        if len(f) != ncol or "" in f:
            raise Refused(no, "e fields")
    if erows and ncol not in (2, 3):
        raise Refused(None, "e width")
    if weighted and erows and ncol != 3:
        raise Refused(None, "no weights")
    use_w = (ncol == 3) if weighted is None else bool(weighted)
    w, kind = (weights_of([(no, f[2]) for no, f in erows]) if use_w and erows else ([], "f"))
    vs, src, dst = ids_of([[(no, f[0]) for no, f in vrows], [(no, f[0]) for no, f in erows],
                           [(no, f[1]) for no, f in erows]], ids)
    if len(set(vs)) != len(vs):
        raise Refused(None, "duplicate vertex")
    vset = set(vs)
    for a, b in zip(src, dst):
        if a not in vset or b not in vset:
            raise Refused(None, "edge vertex not in .v")
    return RefGraph(src, dst, w, kind if erows else "f", directed=directed, weighted=use_w, vertices=vs)


# -- base files and mutations ------------------------------------------------------------------------
TOKENS = ["\r", "\r\n", "\n", "\x00", "\ufeff", "#", "%", '"', '""', ",", "\t", "  ", " ", "0x10", "0X1f", "1e3",
          "1.0", "1.5", "-5", "+7", "007", "99999999999999999999", "18446744073709551615", "9223372036854775807",
          "9223372036854775808", "-9223372036854775809", "nan", "inf", "-inf", "NaN", "1_000", "\u0665", "\xa0",
          "\x0b", "\x0c", "\x1c", "\xff", "\xc3", "e5", ".", "-", "+", "2000000000", "1000000000", "3000000000",
          "5000000000", "src", "dst", "weight", "alice", "bob", "\u00e9", "\U0001f600", "%%MatrixMarket",
          "x" * 140_000, "0 1", "1 2 3", "a,b", '"a,b"', '"a', "1e400", "-0", "4.9e-324", "1e-400"]


def base_edgelists(rng):
    """Valid edge lists: integers, names, weights, comments, separators, CSV with a header."""
    out = []
    for _ in range(12):
        m = rng.randint(0, 12)
        n = rng.choice([3, 10, 50])
        ints = [(rng.randrange(n), rng.randrange(n)) for _ in range(m)]
        w = [rng.choice([rng.randint(-5, 100), round(rng.uniform(-2, 50), rng.randint(0, 6))]) for _ in range(m)]
        sep = rng.choice([" ", "\t", "  ", ",", ", "])
        named = rng.random() < 0.3
        fmt = (lambda v: f"v{v}") if named else str
        weighted = rng.random() < 0.5
        lines = [sep.join([fmt(a), fmt(b)] + ([str(x)] if weighted else [])) for (a, b), x in zip(ints, w)]
        if rng.random() < 0.3:
            lines.insert(0, "# a comment")
        if rng.random() < 0.2:
            lines.insert(rng.randint(0, len(lines)), "% another")
        if rng.random() < 0.2 and "," in sep:
            lines.insert(0, sep.join(["src", "dst"] + (["weight"] if weighted else [])))
        ext = ".csv" if "," in sep and rng.random() < 0.5 else (".wel" if weighted and rng.random() < 0.5 else ".el")
        out.append(("\n".join(lines) + ("\n" if rng.random() < 0.9 else ""), ext))
    return out


def base_mtx(rng):
    out = []
    for _ in range(8):
        field = rng.choice(["real", "integer", "pattern"])
        sym = rng.choice(["general", "symmetric"])
        nr, nc = rng.randint(1, 20), rng.randint(1, 20)
        m = rng.randint(0, 10)
        ent = []
        for _ in range(m):
            r, c = rng.randint(1, nr), rng.randint(1, nc)
            v = {"real": f"{rng.uniform(-3, 3):.4g}", "integer": str(rng.randint(-9, 9)), "pattern": None}[field]
            ent.append(f"{r} {c}" + (f" {v}" if v else ""))
        text = f"%%MatrixMarket matrix coordinate {field} {sym}\n% comment\n{nr} {nc} {m}\n" + "\n".join(ent) + "\n"
        out.append((text, ".mtx"))
    return out


def base_graphalytics(rng):
    out = []
    for _ in range(8):
        n = rng.randint(1, 15)
        named = rng.random() < 0.3
        ids = [f"n{i}" for i in range(n)] if named else rng.sample(range(40), n)
        m = rng.randint(0, 12)
        weighted = rng.random() < 0.5
        edges = [(rng.choice(ids), rng.choice(ids), f"{rng.uniform(0, 9):.3f}") for _ in range(m)]
        v = "\n".join(map(str, ids)) + "\n"
        e = "\n".join(f"{a} {b}" + (f" {w}" if weighted else "") for a, b, w in edges) + "\n"
        props = (f"graph.g.directed = {rng.choice(['true', 'false'])}\n"
                 + ("graph.g.edge-properties.names = weight\n" if weighted else ""))
        out.append((v, e, props))
    return out


NUMERIC = ["007", "+7", "-0", "7.0", "1e1", "0.5", "-3", "9223372036854775807", "9223372036854775808",
           "18446744073709551616", "2000000000", "4611686018427387904", "1.7976931348623157e308", "5e-324",
           ".5", "5.", "+.5e+1", "123456789012345678", "3.141592653589793238462643383279"]


def mutate_numbers(rng, text: str) -> bytes:
    """Gentle edits that keep the shape: one to three numbers written another way (or another number)."""
    data = text
    for _ in range(rng.randint(1, 3)):
        spans = [m.span() for m in re.finditer(r"(?<![^ \t\n,])[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?(?![^ \t\n,])", data)]
        if not spans:
            break
        a, b = rng.choice(spans)
        data = data[:a] + rng.choice(NUMERIC) + data[b:]
    return data.encode()


def mutate(rng, text: str) -> bytes:
    """Half the time a gentle edit of the numbers, else :func:`mutate_text`."""
    return mutate_numbers(rng, text) if rng.random() < 0.4 else mutate_text(rng, text)


def mutate_text(rng, text: str) -> bytes:
    """One to four random edits: a token inserted or replacing one, a byte flipped, lines dropped,
    duplicated or swapped, a tail cut."""
    data = text
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        if op < 0.35 and data:  # insert a token
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.choice(TOKENS) + data[i:]
        elif op < 0.6 and data:  # replace a field with a token
            fields = [m.span() for m in re.finditer(r"[^ \t\n,]+", data)]
            if fields:
                a, b = rng.choice(fields)
                data = data[:a] + rng.choice(TOKENS) + data[b:]
        elif op < 0.7 and data:  # flip a byte
            raw = bytearray(data.encode("utf-8", "surrogateescape"))
            raw[rng.randrange(len(raw))] = rng.randrange(256)
            data = raw.decode("utf-8", "surrogateescape")
        elif op < 0.85:  # lines: drop, duplicate, swap
            lines = data.split("\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                kind = rng.randrange(3)
                if kind == 0:
                    del lines[i]
                elif kind == 1:
                    lines.insert(i, lines[j])
                else:
                    lines[i], lines[j] = lines[j], lines[i]
            data = "\n".join(lines)
        elif data:  # cut the tail
            data = data[:rng.randrange(len(data) + 1)]
    return data.encode("utf-8", "surrogateescape")


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=1)


def write_bomb(path, nbytes=2 << 30):
    """A .gz of ``nbytes`` of "0 1" lines, written a block at a time (a few MB on disk)."""
    block = b"0 1\n" * (1 << 18)
    with gzip.open(path, "wb", compresslevel=6) as f:
        for _ in range(nbytes // len(block)):
            f.write(block)


def big_edgelist(rng, lines=300_000):
    """A valid edge list of several pyarrow blocks (ints, some weighted)."""
    weighted = rng.random() < 0.5
    n = rng.choice([1000, 10 ** 6])
    rows = [f"{rng.randrange(n)} {rng.randrange(n)}" + (f" {rng.randint(0, 99)}" if weighted else "")
            for _ in range(lines)]
    return "\n".join(rows) + "\n", ".wel" if weighted else ".el"

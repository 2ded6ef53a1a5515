"""An in-process Collective for tests: p ranks as threads that swap arrays through shared slots."""

import threading

from dgraph.backend import array_module
from dgraph.exchange.collective import Collective, _raise_if


class ThreadGroup:
    def __init__(self, p):
        self.p = p
        self.barrier = threading.Barrier(p, timeout=60)
        self.slots = [None] * p

    def swap(self, rank, value):
        self.barrier.wait()
        self.slots[rank] = value
        self.barrier.wait()
        got = list(self.slots)
        self.barrier.wait()
        return got


class ThreadCollective(Collective):
    def __init__(self, group, rank):
        self.group, self.rank, self.size = group, rank, group.p

    def allreduce(self, a, op="sum", failed=False):
        got = self.group.swap(self.rank, (failed, a))
        _raise_if([g[0] for g in got], self.rank)
        out = got[0][1].copy()
        for _, x in got[1:]:
            out = out + x if op == "sum" else array_module(out).maximum(out, x)
        return out

    def alltoallv(self, pieces, failed=False):
        got = self.group.swap(self.rank, (failed, pieces))
        _raise_if([g[0] for g in got], self.rank)
        return [got[j][1][self.rank] for j in range(self.size)]


def run_ranks(p, fn):
    """fn(collective) on p threads; -> results in rank order (the first exception is raised)."""
    group = ThreadGroup(p)
    results, errors = [None] * p, [None] * p

    def work(q):
        try:
            results[q] = fn(ThreadCollective(group, q))
        except Exception as exc:  # noqa: BLE001
            errors[q] = exc

    threads = [threading.Thread(target=work, args=(q,)) for q in range(p)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors

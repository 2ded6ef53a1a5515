"""The ``tasks`` executor: every superstep is a Dask task graph.

Per superstep: one kernel task per shard (``bfs-advance-s7-p3``), the
exchange tasks of the schedule (a merge task per receiver for every round
but the last, ``bfs-exchange-s7-r0-p3``, and a select task on a sender
only when it forwards part of what it holds), and one receive task per
shard (``bfs-receive-s7-p3``) that takes the last round's messages, merges
everything and produces the superstep's report.  All of it is visible in
the dashboard.

A shard's state never leaves its worker: it is the output of that shard's
previous receive task, read (and updated in place) by the next superstep's
tasks on the same worker.  Only contributions travel.  Every shard computes
the same report, so a shard's tasks read their own; the client fetches
shard 0's report through a tiny task.  Several supersteps are submitted per
round trip (``lookahead``): a superstep that finds the program already
converged does nothing.
"""

from __future__ import annotations

import time
import uuid

from .program import StepContext


def _init(program, shard):
    """-> (state, report before superstep 0): the shape every receive task returns."""
    state = program.init(shard)
    return state, program.initial_report(shard, state)


def _superstep(program, shard, prev, step, p):
    """-> {part: contribution}, None once converged (the state is updated in place)."""
    state, report = prev
    if program.converged(report, step):
        return {shard.part: None}
    return {shard.part: program.superstep(shard, state, StepContext(step, report, p))}


def _select(held, origins):
    return {o: held[o] for o in origins}


def _merge(*parts):
    out = {}
    for part in parts:
        out.update(part)
    return out


def _receive(program, shard, prev, step, p, schedule, *parts):
    """-> (state, report of this superstep)."""
    state, report = prev
    held = _merge(*parts)
    contributions = [held[q] for q in range(p)]
    if contributions[shard.part] is None:
        return state, dict(report, _skipped=True)
    from ..exchange import bytes_moved  # noqa: PLC0415

    new = program.receive(shard, state, contributions, StepContext(step, report, p))
    new["bytes_exchanged"] = bytes_moved(schedule, [c.nbytes() for c in contributions])
    new["_finished_at"] = time.time()
    return state, new


def _report(out):
    return out[1]


def _final(program, shard, prev):
    return {shard.part: program.final_contribution(shard, prev[0])}


def _finish(program, shard, prev, p, *parts):
    state = prev[0]
    held = _merge(*parts)
    finals = [held[q] for q in range(p)]
    if finals[shard.part] is not None:
        program.final_receive(shard, state, finals)
    return program.finish(shard, state)


def run_tasks(program, PG, schedule, *, on_step=None, max_supersteps=None, lookahead=4):
    client = PG.client
    p = PG.num_parts
    token = uuid.uuid4().hex[:8]
    name = program.name
    shards, workers = PG.shards, PG.workers

    def submit(fn, *args, key, q):
        return client.submit(fn, *args, key=f"{key}-{token}", workers=[workers[q]], pure=False, retries=0)

    def exchange(own, tag):
        """The schedule as tasks; -> per partition, the futures its consumer merges."""
        held = list(own)
        holds = [{q} for q in range(p)]
        parts = [[own[q]] for q in range(p)]
        for k, rnd in enumerate(schedule.rounds):
            incoming = {dst: [] for dst in range(p)}
            for t in rnd:
                whole = set(t.origins) == holds[t.src]
                incoming[t.dst].append(held[t.src] if whole else submit(
                    _select, held[t.src], t.origins, key=f"{name}-send-{tag}-r{k}-p{t.src}to{t.dst}", q=t.src))
            for t in rnd:
                holds[t.dst] |= set(t.origins)
            last = k == len(schedule.rounds) - 1
            for q in range(p):
                if incoming[q]:
                    parts[q] = [held[q], *incoming[q]]
                    if not last:
                        held[q] = submit(_merge, *parts[q], key=f"{name}-exchange-{tag}-r{k}-p{q}", q=q)
                        parts[q] = [held[q]]
        return parts

    outs = [submit(_init, program, shards[q], key=f"{name}-init-p{q}", q=q) for q in range(p)]
    records = []
    step = 0
    last_finish = time.time()
    while True:
        batch = []
        for _ in range(lookahead):
            if max_supersteps is not None and step >= max_supersteps:
                break
            own = [submit(_superstep, program, shards[q], outs[q], step, p, key=f"{name}-advance-s{step}-p{q}", q=q)
                   for q in range(p)]
            parts = exchange(own, f"s{step}")
            outs = [submit(_receive, program, shards[q], outs[q], step, p, schedule, *parts[q],
                           key=f"{name}-receive-s{step}-p{q}", q=q) for q in range(p)]
            batch.append(submit(_report, outs[0], key=f"{name}-report-s{step}", q=0))
            step += 1
        if not batch:
            break
        reports = client.gather(batch)
        done = False
        for s0, rep in zip(range(step - len(batch), step), reports):
            if rep.get("_skipped"):
                done = True
                break
            finished = rep.pop("_finished_at")
            record = {"superstep": s0, **rep, "time_s": finished - last_finish}
            last_finish = finished
            records.append(record)
            if on_step is not None:
                on_step(record)
            if program.converged(rep, s0 + 1):
                done = True
                break
        if done or (max_supersteps is not None and step >= max_supersteps):
            break
    parts = exchange([submit(_final, program, shards[q], outs[q], key=f"{name}-final-p{q}", q=q)
                      for q in range(p)], "final")
    qs = [0] if program.replicated_result else range(p)
    results = [submit(_finish, program, shards[q], outs[q], p, *parts[q], key=f"{name}-finish-p{q}", q=q)
               for q in qs]
    from distributed import wait  # noqa: PLC0415

    wait(results)  # computed; they stay on the workers until the Result is read
    return results, records

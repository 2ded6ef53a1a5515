"""The ``tasks`` executor: every superstep is a Dask task graph.

Per superstep: one kernel task per shard (``bfs-advance-s7-p3``), the
exchange tasks of the schedule (per round, a select task on each sender
and a merge task on each receiver: ``bfs-exchange-s7-r1-p3``), and one
receive task per shard (``bfs-receive-s7-p3``) that merges what arrived and
produces the superstep's report.  All of it is visible in the dashboard.

Several supersteps are submitted per round trip (``lookahead``): a
superstep that finds the program already converged does nothing, so the
client only waits on the last report of each batch.
"""

from __future__ import annotations

import time
import uuid

from .program import StepContext


def _init(program, shard):
    """-> (state, report before superstep 0): the shape every receive task returns."""
    state = program.init(shard)
    return state, program.initial_report(shard, state)


def _superstep(program, shard, prev, lead, step, p):
    """-> (state, {part: contribution}); the contribution is None once converged."""
    state, report = prev[0], lead[1]
    if program.converged(report, step):
        return state, {shard.part: None}
    return state, {shard.part: program.superstep(shard, state, StepContext(step, report, p))}


def _select(held, origins):
    return {o: held[1][o] for o in origins}


def _merge(held, *parts):
    out = dict(held[1])
    for part in parts:
        out.update(part)
    return held[0], out


def _receive(program, shard, held, lead, step, p, schedule):
    """-> (state, report of this superstep)."""
    state, contributions = held[0], [held[1][q] for q in range(p)]
    report = lead[1]
    if contributions[shard.part] is None:
        return state, dict(report, _skipped=True)
    from ..exchange import bytes_moved  # noqa: PLC0415

    new = program.receive(shard, state, contributions, StepContext(step, report, p))
    new["bytes_exchanged"] = bytes_moved(schedule, [c.nbytes() for c in contributions])
    new["_finished_at"] = time.time()
    return state, new


def _final(program, shard, prev):
    """-> (state, {part: final contribution or None})."""
    return prev[0], {shard.part: program.final_contribution(shard, prev[0])}


def _finish(program, shard, held, p):
    state, finals = held[0], [held[1][q] for q in range(p)]
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

    def exchange(held, tag):
        """The schedule's rounds as tasks: select on each sender, merge on each receiver."""
        for k, rnd in enumerate(schedule.rounds):
            incoming = {dst: [] for dst in range(p)}
            for t in rnd:
                incoming[t.dst].append(submit(_select, held[t.src], t.origins,
                                              key=f"{name}-send-{tag}-r{k}-p{t.src}to{t.dst}", q=t.src))
            held = [submit(_merge, held[q], *incoming[q], key=f"{name}-exchange-{tag}-r{k}-p{q}", q=q)
                    if incoming[q] else held[q] for q in range(p)]
        return held

    outs = [submit(_init, program, shards[q], key=f"{name}-init-p{q}", q=q) for q in range(p)]
    records = []
    step = 0
    last_finish = time.time()
    while True:
        batch = []
        for _ in range(lookahead):
            if max_supersteps is not None and step >= max_supersteps:
                break
            lead = outs[0]
            held = exchange([submit(_superstep, program, shards[q], outs[q], lead, step, p,
                                    key=f"{name}-advance-s{step}-p{q}", q=q) for q in range(p)], f"s{step}")
            outs = [submit(_receive, program, shards[q], held[q], lead, step, p, schedule,
                           key=f"{name}-receive-s{step}-p{q}", q=q) for q in range(p)]
            batch.append(outs[0])
            step += 1
        if not batch:
            break
        reports = [pair[1] for pair in client.gather(batch)]
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
    held = exchange([submit(_final, program, shards[q], outs[q], key=f"{name}-final-p{q}", q=q)
                     for q in range(p)], "final")
    parts = [0] if program.replicated_result else range(p)
    results = [submit(_finish, program, shards[q], held[q], p, key=f"{name}-finish-p{q}", q=q) for q in parts]
    from distributed import wait  # noqa: PLC0415

    wait(results)  # computed; they stay on the workers until the Result is read
    return results, records


__all__ = ["run_tasks"]

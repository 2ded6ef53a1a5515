"""Reading Dask's own logs for the ``tasks`` executor's timing scripts (tasks-breakdown.py,
tasks-bfs-timeline.py): the scheduler's transition log and each worker's state-machine log since a
moment, every key as a string.  Run through ``client.run_on_scheduler`` / ``client.run``; the
scripts ship this module to the processes by value (:func:`ship`), since they cannot import it.
"""


def ship():
    """Have cloudpickle send this module's functions by value (Dask's processes do not have
    benchmarks/ on their path)."""
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def on_scheduler(dask_scheduler, since):
    """(key, start, finish, stamp) of each scheduler transition since ``since``."""
    return [(str(t.key), t.start, t.finish, t.timestamp) for t in dask_scheduler.transition_log
            if t.timestamp >= since]


def on_worker(dask_worker, since):
    """(key, what, stamp): the task's arrival (compute-task) and its transitions (start->final)."""
    out = []
    for e in dask_worker.state.log:
        if not e or not isinstance(e[-1], float) or e[-1] < since:
            continue
        if len(e) >= 4 and e[1] == "compute-task":
            out.append((str(e[0]), "compute-task", e[-1]))
        elif len(e) == 7 and isinstance(e[1], str) and isinstance(e[3], str):
            out.append((str(e[0]), f"{e[1]}->{e[3]}", e[-1]))
    return out

"""Exchange schedules: how p partitions allgather their per-partition contributions.

``butterfly(p, fanout)`` (ButterFly BFS, any p, ceil(log_max(2,f) p) rounds)
and ``all_to_all(p)`` build a ``Schedule`` of rounds of ``Transfer``s;
``parse_exchange`` turns a user's spec into one; ``simulate`` is the
one-process reference executor; ``bytes_moved`` counts traffic for benchmarks.
See ``dgraph.exchange.schedule`` for the construction and why it delivers
every contribution exactly once.
"""

from dgraph.exchange.schedule import (
    DEFAULT_FANOUT,
    KINDS,
    Schedule,
    Transfer,
    all_to_all,
    butterfly,
    bytes_moved,
    ceil_log,
    parse_exchange,
    simulate,
)

__all__ = [
    "DEFAULT_FANOUT",
    "KINDS",
    "Schedule",
    "Transfer",
    "all_to_all",
    "butterfly",
    "bytes_moved",
    "ceil_log",
    "parse_exchange",
    "simulate",
]

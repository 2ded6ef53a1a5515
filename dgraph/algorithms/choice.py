"""What an algorithm's implementation chooser reads off the graph before a run.

Each algorithm package has one function that says which implementation runs (recorded in
``Result.params["implementation"]``).  Most choices hang on the same two facts, computed here
once from the graph and the executor the run will use, the way :func:`dgraph.engine.run.run_program`
will settle them (:func:`dgraph.engine.run.run_target`).
"""

from __future__ import annotations

from ..errors import InputError

#: what every algorithm's ``kernels=`` takes: 'fused' (the compiled kernels where the graph allows)
#: or 'generic' (the vectorized supersteps, the reference)
KERNELS = ("fused", "generic")


def check_kernels(kernels):
    """An InputError naming ``kernels`` unless it is one of :data:`KERNELS`."""
    if kernels not in KERNELS:
        raise InputError(f"kernels={kernels!r}: expected 'fused' or 'generic'")


def run_shape(G, backend, executor):
    """``(backend, one_whole_shard)`` of a run of ``G``.

    ``backend``: 'numpy' or 'cupy', the backend the run computes on.  ``one_whole_shard``: the
    local executor runs one shard holding every vertex in order (``Shard.whole``), the only case
    where it calls a Program's ``run_steps``: a Graph, or a one-partition contiguous PartitionedGraph.
    """
    from ..engine.run import run_target  # noqa: PLC0415

    t = run_target(G, backend, executor)
    return t.backend, t.whole and t.local


__all__ = ["KERNELS", "check_kernels", "run_shape"]

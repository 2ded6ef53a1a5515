"""GPU memory checks: too large is a GraphTooLargeError with the sizes, raised before allocating."""

import pytest

import dgraph
from dgraph.backend import device_memory, gpu_available


def test_require_passes_when_it_fits():
    assert device_memory.require(10, "x", have=(100, 1000)) is None


def test_require_names_sizes_and_remedies():
    with pytest.raises(dgraph.GraphTooLargeError) as e:
        device_memory.require(3 * 2**30, "generate('rmat', scale=30)", have=(2**30, 80 * 2**30))
    msg = str(e.value)
    assert "generate('rmat', scale=30) needs about 3.0 GiB" in msg
    assert "1.0 GiB free of 80.0 GiB" in msg
    assert "partition" in msg and "backend='numpy'" in msg
    assert isinstance(e.value, dgraph.DGraphError) and isinstance(e.value, MemoryError)


def test_host_refuses_what_cannot_fit_with_the_sizes():
    with pytest.raises(dgraph.GraphTooLargeError) as e:
        device_memory.require(5 * 2**30, "building graph g (10 vertices, 3 edges)", device="host",
                              have=(2**30, 8 * 2**30), advice="pass renumber=True")
    msg = str(e.value)
    assert "building graph g (10 vertices, 3 edges) needs about 5.0 GiB of memory" in msg
    assert "this machine has 1.0 GiB available of 8.0 GiB" in msg
    assert msg.index("Pass renumber=True") < msg.index("more memory") and "generate_partitioned" in msg
    assert device_memory.require(10, "x", device="host", have=(100, 1000)) is None


def test_host_available_is_below_the_address_space_limit():
    import resource

    free, total = device_memory.host_available()
    assert 0 < free <= total
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        assert free <= soft


def test_build_estimate_counts_vertices_and_renumbering():
    base = device_memory.build_bytes(1000, directed=True, weighted=False, device="host")
    assert device_memory.build_bytes(1000, True, False, 10**6, device="host") >= base + 16 * 10**6
    assert device_memory.build_bytes(1000, True, False, renumber=True, device="host") > base


def test_build_estimate_grows_with_edges_and_weights():
    small = device_memory.build_bytes(1000, directed=True, weighted=False)
    assert device_memory.build_bytes(1000, directed=False, weighted=False) > small
    assert device_memory.build_bytes(1000, directed=True, weighted=True) > small
    assert device_memory.build_bytes(2000, directed=True, weighted=False) == 2 * small


@pytest.mark.gpu
def test_gpu_refuses_a_graph_it_cannot_hold(monkeypatch):
    if not gpu_available():
        pytest.skip("no usable CUDA GPU / CuPy")
    import cupy as cp

    before = cp.get_default_memory_pool().used_bytes()
    with pytest.raises(dgraph.GraphTooLargeError, match=r"generate\('rmat', edgefactor=16, scale=34\) "
                                                     r"\(17,179,869,184 vertices, 274,877,906,944 edges\) needs about"):
        dgraph.generate("rmat", scale=34, edgefactor=16, backend="cupy")
    assert cp.get_default_memory_pool().used_bytes() == before  # nothing was allocated
    G = dgraph.generate("rmat", scale=10, directed=True)
    monkeypatch.setattr(device_memory, "available", lambda: (1024, 2**30))
    with pytest.raises(dgraph.GraphTooLargeError, match="arcs"):
        G.to("cupy")


def test_too_large_for_one_gpu_says_how_many_would_hold_it():
    """rmat scale 28 on an 80 GB GPU: not built whole on one, built partitioned on two (issue 20)."""
    n, m = 1 << 28, 16 << 28
    gb80 = 80 * 10**9

    def per_gpu(p):
        return device_memory.partitioned_build_bytes(n, m, False, False, p)

    assert device_memory.gpus_needed(per_gpu, gb80) == 2
    assert device_memory.gpus_needed(lambda p: device_memory.partitioned_build_bytes(2 * n, 2 * m, False, False, p),
                                     gb80) == 4
    with pytest.raises(dgraph.GraphTooLargeError) as e:
        device_memory.require(device_memory.build_bytes(m, False, False), "generate('rmat', scale=28)",
                              have=(gb80 * 0.95, gb80), per_gpu=per_gpu)
    msg = str(e.value)
    assert "needs about 400.0 GiB" in msg and "it needs 2 GPUs of this size" in msg
    assert "generate_partitioned(kind, 2, backend='cupy'" in msg

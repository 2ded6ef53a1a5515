"""dgraph.cuda without a GPU: the shared CUDA text moved out of Python strings byte for byte,
``source()`` resolving ``#include "..."``, the machinery in one place, no CuPy import."""

import hashlib
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import dgraph
from dgraph.cuda import COMMON, common, source
from dgraph.errors import MissingFileError

#: sha256 of each kernel module's assembled CUDA source as it was when common.cuh and
#: gpu_kernels.cu were still Python strings in backend/gpu_kernels.py (commit a201d39; SSSP's
#: merge_dist added since, 28c1814).  The same
#: text is the same program and the same CuPy cache key.  A change that edits CUDA on purpose
#: (or moves a module's kernels into a .cu file) updates its line here.  A key names a module of
#: dgraph/backend, or a full module path (an algorithm package's gpu.py, its CUDA in <name>.cu).
BEFORE = {
    ("gpu_kernels", "COMMON"): "bb731ca7f6eb631b9060a224d687760c6005f47f9ae01e93920ef09e87cdbe38",
    # BFS's visits (push_lb, pull) moved to dgraph/algorithms/bfs/bfs.cu: both texts are new, and
    # test_bfs_visits_moved_byte_for_byte splices them back into the text before (GPU_KERNELS_BEFORE)
    ("gpu_kernels", "_SOURCE"): "0b1f890b9527e6c69a067ad1b1016ffe011d1c8c0c56317de92b997388fadc32",
    ("dgraph.algorithms.bfs.gpu", "_SOURCE"): "0a460d0de3d623e13184046736d86b8468847c96efe9fc54557d8bb7bab1f6f4",
    # SSSP: backend/gpu_sssp.py's DEVICE + _KERNELS strings, now algorithms/sssp/sssp.cuh + sssp.cu;
    # changed 2026-11-26: relax_dist and merge_dist share offer() and append() (run on the GPU suite);
    # fourth session: relax_dist takes the rows' ids (a partition's skip), split queues a partition's
    # own near vertices (GPU suite: test_sssp, test_gpu_sssp_steps); tenth: split's routed flag,
    # route_count/route_scatter (each improvement to its owner; GPU: test_multigpu, test_gpu_sssp_steps)
    ("dgraph.algorithms.sssp.gpu", "DEVICE"): "a70f659ee4c29a1e270a851ebc7fdd4e79556ca004802ba54f3d3ee13ec048f4",
    ("dgraph.algorithms.sssp.gpu", "_SOURCE"): "d67692e9a4a21deed180fc20efdf892e957fbd03177b8192a0db29449f1cb12e",
    # backend/gpu_sssp_steps.py's _SOURCE, now algorithms/sssp/sssp_steps.cu (+ sssp.cuh)
    ("dgraph.algorithms.sssp.solver", "_SOURCE"): "ea70ac89ba6e9bdb1068fac37185b725997a3656340403d6e2445ec3742fccd0",
    ("dgraph.algorithms.bfs.solver", "_SOURCE"): "5c82aa43c368b90ca3ca07af873a8938e3e775f6e21c82bdd7cd79f04ec346c1",
    # fifth session: set_bits_counted (the fixed-size bitmap exchange; GPU: test_gpu_frontier);
    # sixth: mark_union_vertices (a pull after a pull) and mask_word shared (GPU: test_multigpu, test_gpu_frontier)
    # seventh: found_elsewhere (the parents a shard found for others' vertices), mark_union_counted (GPU: test_multigpu)
    # eighth: found_elsewhere into fixed-size buffers (a cap), min_pairs (GPU: test_multigpu)
    ("dgraph.algorithms.bfs.union", "_SOURCE"): "e6f60ac1b8a7eeb428df30cb47a41294605c55e3b8aa2fa33a170464d74b2f55",
    # fifth session, new: bfs/peers.cu (push levels on every GPU at once; GPU: test_multigpu);
    # eighth: pull levels too, three slots (GPU: test_multigpu); ninth: the union a warp per 32 words,
    # a lane per sparse word after a push, a pull's union reads only the word's owners (GPU: test_multigpu);
    # then the pull's two claims through one helper (the same PTX but for register numbers; not run on a GPU)
    ("dgraph.algorithms.bfs.peers", "_SOURCE"): "5ded4e7684ad01070a61e61d742f9e8763689c6f8c57908a14fdcb10044cfbbb",
    ("dgraph.algorithms.wcc.gpu", "_SOURCE"): "dedc68872b97f3bbe073df9673721dcf7370a4e72fe5d674e609348584517eb4",
    # fourth session: rank_update_split and split_rows (a partition's in-edges cut by source)
    ("dgraph.algorithms.pagerank.gpu", "_SOURCE"): "5bc447dcd270242dd543fe5dffde229d0c112cf76abb35a4262e59cd45e4c2e3",
    # issue 23 part 7, new kernels (no text before them): triangles/triangles.cu, bc/bc.cu, cdlp/cdlp.cu
    ("dgraph.algorithms.triangles.gpu", "_SOURCE"): "79fa93865820dabdf71c4eb8752fef29fa625fd15fa312e6a233d2757ff7c4ad",
    ("dgraph.algorithms.bc.gpu", "_SOURCE"): "b42619fe8d5a9ffdc7435c9ee80eef482a16a4d774b051c4dc6b3645df54a964",
    # ninth session: hub rows cut into segments over many blocks, a warp's equal labels one atomic
    # (GPU: test_gpu_fast_paths -k cdlp, test_multigpu)
    ("dgraph.algorithms.cdlp.gpu", "_SOURCE"): "34b17ced7ef970efc0af05c1e7b50977613aa14c1095dabab2b0f0299e39bd97",
    # fourth session, new: random_walks/walks.cu
    ("dgraph.algorithms.random_walks.gpu", "_SOURCE"): "6ed7ecf2fa5a4b5139069aa774ff2a1f1324d9ceee72bc57e5259ddb04e73aa7",
}

#: backend/gpu_kernels.py's assembled source while it still held BFS's visits (commit 1f07d4d)
GPU_KERNELS_BEFORE = "2b54cde2a38be44fab8407bc6309309610d3088d1c874627d2c7533d85d2d439"

HELPERS = ("warp_emit", "warp_offsets", "block_reserve", "block_sum", "block_add", "now_ns", "block_emit",
           "slot_between", "frontier_slot", "block_frontier_slot_from", "block_frontier_slot", "block_slot",
           "block_tally")


def _sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("module,name", list(BEFORE), ids=[f"{m}.{n}" for m, n in BEFORE])
def test_assembled_sources_are_byte_for_byte_as_before(module, name):
    path = module if module.startswith("dgraph.") else f"dgraph.backend.{module}"
    text = COMMON if name == "COMMON" else getattr(importlib.import_module(path), name)
    assert _sha(text) == BEFORE[module, name]


def test_common_cuh_is_a_file_with_every_helper():
    path = Path(dgraph.__file__).parent / "cuda" / "common.cuh"
    assert path.read_text() == common() == COMMON[1:]
    for helper in HELPERS:
        assert f" {helper}(" in common(), helper


def test_gpu_kernels_cu_includes_common_once():
    raw = (Path(dgraph.__file__).parent / "backend" / "gpu_kernels.cu").read_text()
    assert '#include "common.cuh"' in raw and "block_reserve(bool" not in raw
    text = source("dgraph.backend", "gpu_kernels.cu")
    assert "#include" not in text and text.count("block_reserve(bool flag") == 1
    kernels = {"block_starts", "seg_sum_i32", "seg_sum_i64", "seg_fold", "seg_total"}
    for k in kernels:
        assert f"{k}(" in text, k
    assert "push_lb" not in text and "pull_thread" not in text  # BFS's own: in its package


def test_bfs_visits_moved_byte_for_byte():
    """gpu_kernels.cu less BFS's visits, and bfs.cu, spliced back: the text before, hash for hash.
    Each file is common.cuh, its templates, then one ``extern "C"`` block of its kernels."""
    from dgraph.algorithms.bfs import gpu
    from dgraph.backend import gpu_kernels

    kern_head, kern_tail = gpu_kernels._SOURCE.split('extern "C" {\n')
    bfs_head, bfs_tail = gpu._SOURCE.split('extern "C" {\n')
    lead = "\n" + common() + "\n"
    assert kern_head.startswith(lead) and bfs_head.startswith(common() + "\n") and kern_tail.endswith("}\n")
    before = lead + bfs_head[len(lead) - 1:] + kern_head[len(lead):] + 'extern "C" {\n' + kern_tail[:-2] + bfs_tail
    assert _sha(before) == GPU_KERNELS_BEFORE
    raw = (Path(dgraph.__file__).parent / "algorithms" / "bfs" / "bfs.cu").read_text()
    assert raw.startswith('#include "common.cuh"\n') and "block_reserve(bool" not in raw
    for k in ("push_lb_i32", "push_lb_i64", "pull_i32", "pull_i64"):
        assert f"void {k}(" in gpu._SOURCE and f"void {k}(" not in gpu_kernels._SOURCE, k


def test_source_resolves_includes_in_the_package_then_dgraph_cuda(tmp_path, monkeypatch):
    pkg = tmp_path / "h22_kernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "local.cuh").write_text("// local\n")
    (pkg / "k.cu").write_text('#include "local.cuh"\n#include "common.cuh"\n  #include "local.cuh"\n'
                              '#include <cooperative_groups.h>\n__global__ void k() {}\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    text = source("h22_kernels", "k.cu")
    assert text == "// local\n" + common() + "#include <cooperative_groups.h>\n__global__ void k() {}\n"
    with pytest.raises(MissingFileError, match="CUDA source 'nope.cu' is not in package 'h22_kernels'"):
        source("h22_kernels", "nope.cu")
    (pkg / "bad.cu").write_text('#include "missing.cuh"\n')
    with pytest.raises(MissingFileError, match="'missing.cuh' is not in package 'dgraph.cuda'"):
        source("h22_kernels", "bad.cu")


def test_machinery_lives_in_dgraph_cuda_only():
    """Moved, not copied: the compile cache and the helpers' text are defined once."""
    root = Path(dgraph.__file__).parent
    defining = {str(p.relative_to(root)) for p in root.rglob("*.py")
                if any(f"\ndef {f}(" in p.read_text() for f in ("compiled", "cooperative_grid", "multiprocessors"))}
    assert defining == {"cuda/compile.py"}
    holding = [str(p.relative_to(root)) for p in root.rglob("*.py") if "block_reserve(bool flag" in p.read_text()]
    assert holding == []
    from dgraph.backend import gpu_kernels

    assert not hasattr(gpu_kernels, "COMMON") and not hasattr(gpu_kernels, "_suffix")


def test_no_cupy_import():
    code = ("import sys, dgraph, dgraph.cuda, dgraph.backend.gpu_kernels, dgraph.algorithms.sssp.solver, "
            "dgraph.algorithms.sssp.gpu, dgraph.algorithms.bfs.solver, dgraph.algorithms.wcc.gpu, "
            "dgraph.algorithms.bfs.union, dgraph.algorithms.bfs.gpu, dgraph.algorithms.bfs.peers, "
            "dgraph.algorithms.pagerank.gpu, dgraph.algorithms.triangles.gpu, dgraph.algorithms.bc.gpu, "
            "dgraph.algorithms.cdlp.gpu, dgraph.algorithms.kcore.gpu, dgraph.algorithms.scc.gpu, "
            "dgraph.emv.device; print('cupy' in sys.modules)")
    root = str(Path(dgraph.__file__).parents[1])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_sssp_cuda_lives_in_its_package_files():
    """SSSP's CUDA is in algorithms/sssp/*.cu(h), not Python strings; the host-driven kernels and the
    cooperative kernel compile the same device functions (sssp.cuh), each once."""
    root = Path(dgraph.__file__).parent / "algorithms" / "sssp"
    for p in root.glob("*.py"):
        assert "__device__" not in p.read_text() and "__global__" not in p.read_text(), p.name
    for name in ("sssp.cu", "sssp_steps.cu"):
        raw = (root / name).read_text()
        assert '#include "sssp.cuh"' in raw and "void relax_dist(" not in raw, name
        text = source("dgraph.algorithms.sssp", name)
        assert "#include \"" not in text and text.count("void relax_dist(") == 1, name
        assert text.count("block_reserve(bool flag") == 1, name


@pytest.mark.parametrize("package,name", [("triangles", "triangles.cu"), ("bc", "bc.cu"), ("cdlp", "cdlp.cu")])
def test_issue23_kernels_live_in_their_package_files(package, name):
    """The one-GPU kernels of issue 23 part 7: CUDA in <package>/<name>.cu, none in Python strings;
    the assembled text has common.cuh once and no include left."""
    root = Path(dgraph.__file__).parent / "algorithms" / package
    for p in root.glob("*.py"):
        assert "__global__" not in p.read_text() and "__device__" not in p.read_text(), p.name
    raw = (root / name).read_text()
    assert raw.startswith('#include "common.cuh"\n') and "block_reserve(bool" not in raw
    text = source(f"dgraph.algorithms.{package}", name)
    assert '#include "' not in text and text.count("block_reserve(bool flag") == 1


def test_kcore_peel_cuda_lives_in_its_file_and_compiles(tmp_path):
    """core_number's one-launch peeling: CUDA in kcore/peel.cu only, common.cuh once in the assembled
    text; nvcc (where there is one: no GPU needed) compiles it to PTX."""
    import shutil

    root = Path(dgraph.__file__).parent / "algorithms" / "kcore"
    for p in root.glob("*.py"):
        assert "__global__" not in p.read_text() and "__device__" not in p.read_text(), p.name
    text = source("dgraph.algorithms.kcore", "peel.cu")
    assert '#include "' not in text and text.count("block_reserve(bool flag") == 1
    assert "peel_i32" in text and "peel_i64" in text
    nvcc = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if Path("/usr/local/bin/nvcc").exists() else None)
    if nvcc is None:
        pytest.skip("no nvcc")
    (tmp_path / "peel.cu").write_text(text)
    out = subprocess.run([nvcc, "-arch=sm_80", "-rdc=true", "--ptx", "peel.cu", "-o", "peel.ptx"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert ".entry peel_i32" in (tmp_path / "peel.ptx").read_text()

"""dgraph.backend.gpu_fill on the GPU: fill and replace give what numpy gives, every size and dtype."""

import numpy as np
import pytest

from dgraph.backend import gpu_available

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _needs_gpu():
    if not gpu_available():  # only reached when `-m gpu` is asked for on a machine without one
        pytest.skip("no usable CUDA GPU / CuPy")


SIZES = [0, 1, 3, 4, 5, 7, 8, 9, 255, 256, 257, 4099, 1 << 20, (1 << 20) + 3]
VALUES = {np.int32: [-1, np.iinfo(np.int32).max, 7], np.int64: [-1, np.iinfo(np.int64).max],
          np.float32: [np.inf, -0.5], np.float64: [np.inf, np.nan, 1.0 / 3], np.uint32: [0xDEADBEEF]}


@pytest.mark.parametrize("dtype", list(VALUES), ids=lambda d: np.dtype(d).name)
def test_fill_matches_numpy_full(dtype):
    import cupy as cp

    from dgraph.backend import full
    from dgraph.backend.gpu_fill import fill

    for n in SIZES:
        for v in VALUES[dtype]:
            want = np.full(n, v, dtype=dtype)
            got = cp.asnumpy(full(cp, n, v, dtype))
            np.testing.assert_array_equal(got, want, err_msg=f"n={n} value={v}")
            # a view that does not start on 16 bytes, and a strided one, fall back to CuPy's fill
            base = cp.zeros(n + 2, dtype=dtype)
            fill(base[1:n + 1], v)
            back = cp.asnumpy(base)
            assert back[0] == 0 and back[-1] == 0
            np.testing.assert_array_equal(back[1:n + 1], want)
            strided = cp.zeros(2 * n, dtype=dtype)
            fill(strided[::2], v)
            np.testing.assert_array_equal(cp.asnumpy(strided[::2]), want)
            assert not cp.asnumpy(strided[1::2]).any()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64], ids=lambda d: np.dtype(d).name)
def test_fill_with_one_entry_set(dtype):
    import cupy as cp

    from dgraph.backend import full

    for n in SIZES[1:]:
        for at in sorted({0, n // 2, n - 1, max(0, n - 4), min(n - 1, 5)}):
            want = np.full(n, -1, dtype=dtype)
            want[at] = 3
            np.testing.assert_array_equal(cp.asnumpy(full(cp, n, -1, dtype, at=at, at_value=3)), want,
                                          err_msg=f"n={n} at={at}")
            np.testing.assert_array_equal(full(np, n, -1, dtype, at=at, at_value=3), want)


def test_fill_refuses_an_entry_outside_the_array():
    import cupy as cp

    from dgraph.backend import full

    for xp in (np, cp):
        for at in (-1, 5, 6):
            with pytest.raises(IndexError):
                full(xp, 5, 0, np.int32, at=at, at_value=1)


def test_replace_of_floats_compares_values_not_bits():
    import cupy as cp

    from dgraph.backend.gpu_fill import replace

    a = cp.asarray(np.array([np.nan, -0.0, 0.0, 1.0] * 3))
    replace(a, 0.0, 5.0)  # -0.0 == 0.0; NaN equals nothing
    got = cp.asnumpy(a)
    assert np.isnan(got[0::4]).all() and (got[1::4] == 5.0).all() and (got[2::4] == 5.0).all()


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64], ids=lambda d: np.dtype(d).name)
def test_replace_matches_numpy(dtype):
    import cupy as cp

    from dgraph.backend.gpu_fill import replace

    rng = np.random.default_rng(3)
    old = np.array(np.iinfo(dtype).max if np.dtype(dtype).kind == "i" else np.inf, dtype=dtype)
    for n in SIZES:
        a = rng.integers(0, 50, n).astype(dtype)
        a[rng.random(n) < 0.3] = old
        want = a.copy()
        want[want == old] = -1
        d = cp.asarray(a)
        replace(d, old, -1)
        np.testing.assert_array_equal(cp.asnumpy(d), want, err_msg=f"n={n}")
        for skip in (1, 2, 3, 5):  # views off 16 bytes (a shard's slice): a head by CuPy, the rest by the kernel
            d = cp.asarray(np.concatenate([np.full(skip, old), a, [old]]))
            replace(d[skip:skip + n], old, -1)
            got = cp.asnumpy(d)
            np.testing.assert_array_equal(got[skip:skip + n], want, err_msg=f"n={n} skip={skip}")
            assert (got[:skip] == old).all() and got[-1] == old  # nothing outside the view

"""max_pool's scan over kernel offsets gives the bytes of the window-array path it replaced
(values and indices), ties, NaNs and signed zeros included; and torch's, when installed."""

from __future__ import annotations

import numpy as np
import pytest

from agdebug.ops.nn import pooling

# (input shape, kernel, stride, padding, dilation, ceil_mode): 2D and 3D, padded, dilated
GEOMETRIES = [
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((2, 3, 9, 7), (3, 3), (2, 1), (1, 1), (1, 1), False),
    ((1, 2, 9, 9), (2, 3), (1, 2), (1, 0), (2, 1), True),
    ((1, 2, 5, 6, 7), (2, 2, 3), (1, 2, 2), (1, 0, 1), (1, 1, 2), True),
    ((3, 1, 4), (1, 3), (1, 1), (0, 1), (1, 1), False),
]


def _data(shape, dtype, kind: str):
    rng = np.random.default_rng(7)
    if kind == "ties":   # few distinct values: many windows with tied maxima
        x = rng.integers(-2, 3, shape).astype(dtype)
    else:
        x = rng.standard_normal(shape).astype(dtype)
    if kind == "special" and x.dtype.kind == "f":
        flat = x.reshape(-1)
        flat[::5] = np.nan
        flat[1::7] = -0.0
        flat[2::7] = 0.0
        flat[3::11] = np.inf
        flat[4::13] = -np.inf
        flat[::17] = -np.nan   # a NaN of the other sign: its bits must be the ones kept
    return x


def _both(x, geometry):
    _, kernel, stride, padding, dilation, ceil_mode = geometry
    dims = len(kernel)
    size = x.shape[-dims:]
    out = pooling.pool_out_size(size, kernel, stride, padding, dilation, ceil_mode)
    pads = pooling._pool_padding(size, out, kernel, stride, padding, dilation)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = pooling._pad(np, x, pads, fill)
    args = (np, padded, kernel, stride, dilation, padding, size, out)
    return pooling._scan_windows(*args), pooling._gather_windows(*args)


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("kind", ["random", "ties", "special"])
def test_scan_gives_the_window_paths_bytes(geometry, dtype, kind):
    x = _data(geometry[0], dtype, kind)
    (values, indices), (want_values, want_indices) = _both(x, geometry)
    assert values.dtype == want_values.dtype and indices.dtype == want_indices.dtype
    assert values.shape == want_values.shape and values.flags.c_contiguous
    assert values.tobytes() == want_values.tobytes()
    assert indices.tobytes() == want_indices.tobytes()


@pytest.mark.parametrize("kind", ["random", "ties", "special"])
def test_max_pool2d_matches_torch_bytes(kind):
    torch = pytest.importorskip("torch")
    import agdebug as ag
    x = _data((2, 3, 9, 9), "float32", kind)
    got, got_i = ag.nn.functional.max_pool2d(ag.tensor(x), 3, 2, 1, return_indices=True)
    want, want_i = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1,
                                                  return_indices=True)
    assert got.numpy().tobytes() == want.numpy().tobytes()
    assert np.array_equal(got_i.numpy(), want_i.numpy())

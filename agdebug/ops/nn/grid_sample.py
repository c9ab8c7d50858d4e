"""``F.grid_sample``: one op per dimensionality (GridSampler2DBackward0 on 4-D inputs,
GridSampler3DBackward0 on 5-D ones) whose derivative is an op of its own
(GridSampler2DBackwardBackward0 / GridSampler3DBackwardBackward0, two outputs: the input's
and the grid's gradients), as torch records them. Arguments follow
``torch.grid_sampler_2d``: ``interpolation_mode`` 0 bilinear (trilinear in 3-D), 1 nearest,
2 bicubic (2-D only); ``padding_mode`` 0 zeros, 1 border, 2 reflection.

Each output point reads a few input pixels ("taps": 1, 2 or 4 per axis) with weights that
are products of one weight per axis (x, y and, in 3-D, z: the grid's order). The weights are
polynomials of the fractional source coordinate ``t``, whose derivative in the grid is a
piecewise constant ``mult`` (the unnormalising scale, times 0 or +-1 where border or
reflection padding clips or mirrors it). Forwards use torch's CPU formulas in the input's
dtype (``GridSamplerKernel.cpp`` in 2-D, ``GridSampler.h`` in 3-D); the derivative of the
derivative is written with agdebug ops on the same taps, ``t`` rebuilt from the grid tensor
so that it is differentiable again.
"""

from __future__ import annotations

import itertools
import math

from ...backend import xp_of
from ...tensor import Tensor
from ..indexing.gather_scatter import gather_op, scatter_add_op
from ..indexing.subscript import _add_at
from .loss_pieces import constant_pad_nd
from ..core.registry import defop
from .upsample import CUBIC_A, cubic_far, cubic_near
from ..core.gradients import needs, zeros_grad

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


# ----------------------------------------------------------------------------- coordinates

def _scale(size: int, align_corners: bool, dtype):
    t = dtype.type
    return t(size - 1) / t(2) if align_corners else t(size) / t(2)


def _unnormalize(g, size: int, align_corners: bool, vectorized: bool = True):
    """[-1, 1] grid values to pixel coordinates (corners or pixel edges at +-1), with the
    roundings of torch's 2-D vectorized kernel, or (``vectorized=False``) of the scalar
    ``grid_sampler_unnormalize`` that its 3-D kernel uses."""
    t = g.dtype.type
    shifted = g + t(1)
    if not vectorized:
        if align_corners:
            return shifted / t(2) * t(size - 1)
        return (shifted * t(size) - t(1)) / t(2)
    if align_corners:
        return shifted * _scale(size, align_corners, g.dtype)
    if g.dtype.itemsize < 8:   # torch's kernel fuses the multiply and subtract (one rounding)
        wide = shifted.astype("float64") * float(_scale(size, False, g.dtype)) - 0.5
        return wide.astype(g.dtype)
    return shifted * _scale(size, False, g.dtype) - t(0.5)


def _clip(xp, x, size: int):
    """Coordinates clamped to [0, size - 1], and where the clamp left them free (torch counts
    the borders themselves as clamped: no gradient there)."""
    low = xp.maximum(x, 0)
    res = xp.minimum(low, size - 1)
    return res, (low != 0) & (res != size - 1)


def _reflect(xp, x, size: int, align_corners: bool):
    """Coordinates mirrored into range (about the corner pixels' centres, or their edges),
    and the sign that mirroring gives their derivative."""
    if align_corners and size <= 1:
        return xp.zeros_like(x), xp.zeros_like(x)
    t = x.dtype.type
    low, span = (t(0), t(2 * (size - 1))) if align_corners else (t(-0.5), t(2 * size))
    shifted = x - low
    folded = xp.abs(shifted)
    extra = folded - xp.trunc(folded / span) * span
    flipped = span - extra
    flip = extra > flipped
    sign = xp.where(flip ^ (shifted < 0), t(-1), t(1))
    return xp.where(flip, flipped, extra) + low, sign


def _pad_coordinate(xp, x, size: int, padding: int, align_corners: bool):
    """torch's ``compute_coordinates``: (coordinate, its derivative's factor)."""
    if padding == ZEROS:
        return x, xp.ones_like(x)
    sign = xp.ones_like(x)
    if padding == REFLECTION:
        x, sign = _reflect(xp, x, size, align_corners)
    x, free = _clip(xp, x, size)
    return x, sign * free


class _Axis:
    """One spatial axis of every output point: the fraction ``t``, ``mult`` = d coordinate /
    d grid value, and for each tap its index (``size`` where the tap reads the zero pad)."""

    __slots__ = ("t", "mult", "index")

    def __init__(self, xp, g, size: int, mode: int, padding: int, align_corners: bool,
                 vectorized: bool = True):
        x = _unnormalize(g, size, align_corners, vectorized)
        self.mult = xp.full_like(x, _scale(size, align_corners, x.dtype))
        if mode == BICUBIC:   # the taps are padded one by one, the coordinate is not
            base = xp.floor(x)
            self.t = x - base
            self.index = [_tap(xp, _pad_coordinate(xp, base + k, size, padding,
                                                   align_corners)[0], size)
                          for k in (-1, 0, 1, 2)]
            return
        x, factor = _pad_coordinate(xp, x, size, padding, align_corners)
        self.mult = self.mult * factor
        if mode == NEAREST:
            self.t = None
            self.index = [_tap(xp, xp.round(x), size)]   # half to even, as nearbyint
            return
        base = xp.floor(x)
        self.t = x - base
        self.index = [_tap(xp, base, size), _tap(xp, base + 1, size)]


def _tap(xp, x, size: int):
    """Integral float coordinates to indices; ``size`` (the zero pad) outside [0, size)."""
    inside = (x > -1) & (x < size)
    return xp.where(inside, x, size).astype(xp.int64)


class _Plan:
    """Where each output point of ``grid`` reads ``input`` (shape ``(n, c, *spatial)``).
    ``axes`` are in the grid's order (x, y[, z]): the reverse of the input's dims."""

    def __init__(self, xp, shape: tuple, grid, mode: int, padding: int, align_corners: bool):
        self.n, self.c, *spatial = shape
        self.sizes = tuple(reversed(spatial))   # (w, h[, d]), the axes' sizes
        self.pixels = math.prod(spatial)
        self.out = tuple(grid.shape[1:-1])
        self.p = math.prod(self.out)
        self.mode = mode
        g = grid.reshape(self.n, self.p, len(self.sizes))
        # 2-D: the vectorized kernel's roundings; 3-D: the scalar kernel's
        vectorized = len(self.sizes) == 2
        self.axes = [_Axis(xp, g[..., k], size, mode, padding, align_corners, vectorized)
                     for k, size in enumerate(self.sizes)]
        self.flat = {tap: self._flat_index(xp, tap) for tap in self.taps()}

    def taps(self) -> list:
        """Every tap as its per-axis tap numbers (grid order), x varying fastest."""
        ranges = [range(len(axis.index)) for axis in reversed(self.axes)]
        return [tap[::-1] for tap in itertools.product(*ranges)]

    def _flat_index(self, xp, tap: tuple):
        """The tap's index into the flattened spatial dims; ``pixels`` (the pad) outside."""
        inside, index, stride = True, 0, 1
        for axis, k, size in zip(self.axes, tap, self.sizes):
            inside = inside & (axis.index[k] < size)
            index = index + axis.index[k] * stride
            stride *= size
        return xp.where(inside, index, self.pixels)


# ----------------------------------------------------------------------------- weights

def _weights(mode: int, t, order: int):
    """Per-tap weights along one axis, or their derivatives in ``t`` (``order`` 1 or 2);
    None where they are all zero. ``t`` is an array or a Tensor."""
    if mode == NEAREST:
        return [1] if order == 0 else None
    if mode == BILINEAR:
        return [1 - t, t] if order == 0 else [-1, 1] if order == 1 else None
    a = CUBIC_A
    if order == 0:
        return [cubic_far(t + 1, a), cubic_near(t, a), cubic_near(1 - t, a), cubic_far(2 - t, a)]
    if order == 1:
        def far(x):
            return (3 * a * x - 10 * a) * x + 8 * a

        def near(x):
            return (3 * (a + 2) * x - 2 * (a + 3)) * x
        return [far(t + 1), near(t), -near(1 - t), -far(2 - t)]

    def far(x):
        return 6 * a * x - 10 * a

    def near(x):
        return 6 * (a + 2) * x - 2 * (a + 3)
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _scaled(weights, factor):
    """Each weight times ``factor`` (a per-point array or Tensor), or None."""
    if weights is None or factor is None:
        return None
    return [w * factor for w in weights]


def _replaced(weights: list, k: int, axis_weights) -> list:
    """The per-axis weight lists with axis ``k``'s replaced."""
    return weights[:k] + [axis_weights] + weights[k + 1:]


def _tap_weight(weights: list, tap: tuple):
    """The product of the tap's weight along each axis, x first (as torch's kernels)."""
    w = weights[0][tap[0]]
    for axis_weights, k in zip(weights[1:], tap[1:]):
        w = w * axis_weights[k]
    return w


def _column(w, plan: _Plan):
    """A per-point weight (n, p) as (n, 1, p), to broadcast over channels."""
    return w.reshape(plan.n, 1, plan.p) if hasattr(w, "reshape") else w


def _combine(plan: _Plan, take, weights: list):
    """sum over taps of the tap's weight times take(tap), (n, c, p); None if a weight list is
    None. Bilinear and nearest multiply the weights first, bicubic sums along x first, each
    in the order torch's kernel does."""
    if any(w is None for w in weights):
        return None
    if plan.mode == BICUBIC:
        return _combine_rows(plan, take, *weights)
    total = None
    for tap in plan.taps():
        term = take(tap) * _column(_tap_weight(weights, tap), plan)
        total = term if total is None else total + term
    return total


def _combine_rows(plan: _Plan, take, wx, wy):
    """Bicubic's ``_combine`` (2-D only): each row summed along x, then weighted by y."""
    total = None
    for i, row_weight in enumerate(wy):
        row = None
        for j, w in enumerate(wx):
            term = _column(w, plan) * take((j, i))
            row = term if row is None else row + term
        term = _column(row_weight, plan) * row
        total = term if total is None else total + term
    return total


def _add(*terms):
    """The sum of the terms that are not None (None if all are)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else total + term
    return total


# ----------------------------------------------------------------------------- the ops

def _array_taker(xp, x, plan: _Plan):
    """take(tap): the (n, c, p) input values at the tap, zero outside the input."""
    padded = xp.concatenate([x.reshape(plan.n, plan.c, plan.pixels),
                             xp.zeros((plan.n, plan.c, 1), dtype=x.dtype)], axis=2)
    batch = xp.arange(plan.n)[:, None, None]
    channel = xp.arange(plan.c)[None, :, None]

    def take(tap):
        return padded[batch, channel, plan.flat[tap][:, None, :]]
    return take


def _index(xp, plan: _Plan, tap: tuple):
    """The tap's flat index, (n, c, p), for gather/scatter along dim 2."""
    return xp.broadcast_to(plan.flat[tap][:, None, :], (plan.n, plan.c, plan.p))


def _sample(xp, input, grid, mode: int, padding: int, align_corners: bool):
    """The forward of grid_sampler_2d and grid_sampler_3d."""
    plan = _Plan(xp, input.shape, grid, mode, padding, align_corners)
    out = _combine(plan, _array_taker(xp, input, plan),
                   [_weights(mode, axis.t, 0) for axis in plan.axes])
    return out.reshape(plan.n, plan.c, *plan.out).astype(input.dtype, copy=False)


def _sample_backward(xp, grad_output, input, grid, mode: int, padding: int,
                     align_corners: bool, output_mask):
    """The forward of grid_sampler_2d_backward and grid_sampler_3d_backward."""
    plan = _Plan(xp, input.shape, grid, mode, padding, align_corners)
    g = grad_output.reshape(plan.n, plan.c, plan.p)
    weights = [_weights(mode, axis.t, 0) for axis in plan.axes]
    grad_input = xp.zeros((plan.n, plan.c, plan.pixels + 1), dtype=input.dtype)
    if output_mask[0]:
        key = (xp.arange(plan.n)[:, None, None], xp.arange(plan.c)[None, :, None])
        for tap in plan.taps():
            src = g * _column(_tap_weight(weights, tap), plan)
            _add_at(xp, grad_input, key + (_index(xp, plan, tap),),
                    xp.broadcast_to(src, (plan.n, plan.c, plan.p)))
    grad_grid = xp.zeros((plan.n, plan.p, len(plan.axes)), dtype=grid.dtype)
    if output_mask[1] and mode != NEAREST:   # nearest: the grid gets no gradient
        take = _array_taker(xp, input, plan)
        for k, axis in enumerate(plan.axes):
            along = _combine(plan, take, _replaced(weights, k, _weights(mode, axis.t, 1)))
            grad_grid[..., k] = (along * g).sum(1) * axis.mult
    return (grad_input[..., :-1].reshape(input.shape).astype(input.dtype, copy=False),
            grad_grid.reshape(grid.shape))


@defop("grid_sampler_2d", node="GridSampler2DBackward0", saves=("input", "grid"))
def grid_sampler_2d(xp, input, grid, interpolation_mode=0, padding_mode=0, align_corners=False):
    """Sample ``input`` (N, C, H, W) at the points of ``grid`` (N, H_out, W_out, 2)."""
    return _sample(xp, input, grid, interpolation_mode, padding_mode, align_corners)


@defop("grid_sampler_2d_backward", node="GridSampler2DBackwardBackward0", outputs=2,
       saves=("grad_output", "input", "grid"))
def grid_sampler_2d_backward(xp, grad_output, input, grid, interpolation_mode=0,
                             padding_mode=0, align_corners=False, output_mask=(True, True)):
    """(grad_input, grad_grid) of grid_sampler_2d for the output gradient ``grad_output``."""
    return _sample_backward(xp, grad_output, input, grid, interpolation_mode, padding_mode,
                            align_corners, output_mask)


@defop("grid_sampler_3d", node="GridSampler3DBackward0", saves=("input", "grid"))
def grid_sampler_3d(xp, input, grid, interpolation_mode=0, padding_mode=0, align_corners=False):
    """Sample ``input`` (N, C, D, H, W) at the points of ``grid`` (N, D_out, H_out, W_out, 3)."""
    return _sample(xp, input, grid, interpolation_mode, padding_mode, align_corners)


@defop("grid_sampler_3d_backward", node="GridSampler3DBackwardBackward0", outputs=2,
       saves=("grad_output", "input", "grid"))
def grid_sampler_3d_backward(xp, grad_output, input, grid, interpolation_mode=0,
                             padding_mode=0, align_corners=False, output_mask=(True, True)):
    """(grad_input, grad_grid) of grid_sampler_3d for the output gradient ``grad_output``."""
    return _sample_backward(xp, grad_output, input, grid, interpolation_mode, padding_mode,
                            align_corners, output_mask)


def _sampler_vjp(ctx, grad, backward_op):
    mask = (needs(ctx, 0), needs(ctx, 1))
    grad_input, grad_grid = backward_op(
        grad, ctx.input, ctx.grid, interpolation_mode=ctx.interpolation_mode,
        padding_mode=ctx.padding_mode, align_corners=ctx.align_corners, output_mask=mask)
    return (grad_input if mask[0] else None, grad_grid if mask[1] else None)


@grid_sampler_2d.vjp
def grid_sampler_2d_vjp(ctx, grad):
    return _sampler_vjp(ctx, grad, grid_sampler_2d_backward)


@grid_sampler_3d.vjp
def grid_sampler_3d_vjp(ctx, grad):
    return _sampler_vjp(ctx, grad, grid_sampler_3d_backward)


# ----------------------------------------------------------------------------- double backward

class _Tangents:
    """The per-axis weights as Tensors of the grid: order 0, and the first and second
    derivatives in the grid value (the chain rule's ``mult`` applied)."""

    def __init__(self, plan: _Plan, axis: _Axis, g: Tensor):
        mode = plan.mode
        if axis.t is None:
            self.w = _weights(mode, None, 0)
            self.d1 = self.d2 = None
            return
        mult = _const(axis.mult, g)
        # t = mult * g + (t - mult * g): the forward's value, with the grid's derivative
        t = g * mult + _const(axis.t - g._data * axis.mult, g)
        self.w = _weights(mode, t, 0)
        self.d1 = _scaled(_weights(mode, t, 1), mult)
        self.d2 = _scaled(_weights(mode, t, 2), mult * mult)


def _const(array, like: Tensor) -> Tensor:
    return Tensor._wrap(xp_of(like._data).asarray(array, dtype=like._data.dtype))


def _tensor_taker(x: Tensor, plan: _Plan):
    xp = xp_of(x._data)
    padded = constant_pad_nd(x.reshape(plan.n, plan.c, plan.pixels), pad=(0, 1))

    def take(tap):
        return gather_op(padded, index=_index(xp, plan, tap), dim=2)
    return take


def _scatter(plan: _Plan, g: Tensor, weights: list, shape: tuple):
    """The adjoint of ``_combine``: each tap's weighted ``g`` added at its input pixel."""
    if any(w is None for w in weights):
        return None
    xp = xp_of(g._data)
    total = zeros_grad(g, (plan.n, plan.c, plan.pixels + 1))
    for tap in plan.taps():
        total = scatter_add_op(total, g * _column(_tap_weight(weights, tap), plan),
                               index=_index(xp, plan, tap), dim=2)
    return constant_pad_nd(total, pad=(0, -1)).reshape(shape)


def _sampler_double_vjp(ctx, grad_grad_input, grad_grad_grid):
    """The derivative of grid_sampler_{2,3}d_backward in (grad_output, input, grid), for the
    gradients ``a`` of its grad_input and ``b`` of its grad_grid."""
    g, x, grid = ctx.grad_output, ctx.input, ctx.grid
    plan = _Plan(xp_of(x._data), tuple(x.shape), grid._data, ctx.interpolation_mode,
                 ctx.padding_mode, ctx.align_corners)
    dims = len(plan.axes)
    a = grad_grad_input if ctx.output_mask[0] else None
    b = grad_grad_grid if ctx.output_mask[1] and plan.mode != NEAREST else None
    points = grid.reshape(plan.n, plan.p, dims)
    tangents = [_Tangents(plan, axis, points[..., k]) for k, axis in enumerate(plan.axes)]
    b_parts = [None] * dims if b is None else [b.reshape(plan.n, plan.p, dims)[..., k]
                                               for k in range(dims)]
    take_x = _tensor_taker(x, plan)
    take_a = _tensor_taker(a, plan) if a is not None else None
    flat_g = g.reshape(plan.n, plan.c, plan.p)
    w = [t.w for t in tangents]
    # per axis k: the weights with axis k's first derivative, times b's k-th component
    moved = [_replaced(w, k, _scaled(t.d1, b_parts[k])) for k, t in enumerate(tangents)]
    grads = [None, None, None]
    if needs(ctx, 0):
        total = _add(_combine(plan, take_a, w) if take_a is not None else None,
                     *(_combine(plan, take_x, m) for m in moved))
        grads[0] = total.reshape(g.shape) if total is not None else None
    if needs(ctx, 1):
        grads[1] = _add(*(_scatter(plan, flat_g, m, x.shape) for m in moved))
    if needs(ctx, 2):
        grads[2] = _grid_grad(plan, flat_g, take_x, take_a, tangents, b_parts, grid)
    if needs(ctx, 2) and grads[2] is None and a is not None:   # nearest: zeros, as torch's
        grads[2] = zeros_grad(grid, tuple(grid.shape))
    return tuple(grads)


@grid_sampler_2d_backward.vjp
def grid_sampler_2d_backward_vjp(ctx, grad_grad_input, grad_grad_grid):
    return _sampler_double_vjp(ctx, grad_grad_input, grad_grad_grid)


@grid_sampler_3d_backward.vjp
def grid_sampler_3d_backward_vjp(ctx, grad_grad_input, grad_grad_grid):
    return _sampler_double_vjp(ctx, grad_grad_input, grad_grad_grid)


def _grid_grad(plan, g, take_x, take_a, tangents, b_parts, grid):
    """d/d grid of <a, grad_input> + <b, grad_grid>, or None where it is zero."""
    from ..shape.joining import stack
    w = [t.w for t in tangents]
    parts = []
    for k, first in enumerate(tangents):
        along_k = _replaced(w, k, first.d1)
        terms = [_combine(plan, take_a, along_k) if take_a is not None else None,
                 _combine(plan, take_x, _replaced(w, k, _scaled(first.d2, b_parts[k])))]
        for m, second in enumerate(tangents):
            if m != k:
                terms.append(_combine(plan, take_x, _replaced(
                    along_k, m, _scaled(second.d1, b_parts[m]))))
        term = _add(*terms)
        parts.append(None if term is None else (term * g).sum(1))
    if all(p is None for p in parts):
        return None
    parts = [p if p is not None else zeros_grad(g, (plan.n, plan.p)) for p in parts]
    return stack(parts, -1).reshape(grid.shape)

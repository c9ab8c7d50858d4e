"""``torch.Generator`` on the CPU, number for number: the same seed gives the same ``rand``,
``randn``, ``randint``, ``randperm``, ``uniform_`` and ``normal_`` values as torch.

torch's CPU generator is the 32-bit Mersenne Twister (MT19937, seeded with the low 32 bits of
the seed as ``std::mt19937`` is), read through fixed transformations
(``aten/src/ATen/core/DistributionsHelper.h`` and ``native/cpu/DistributionTemplates.h``):

- a float32 uniform is ``(u32 & (2**24 - 1)) * 2**-24``, a float64 one takes 53 bits of two
  draws (``hi << 32 | lo``); ``uniform_(a, b)`` is then one fused multiply-add;
- ``randint`` is ``u32 % range + low`` (``u64`` past 2**32); ``randperm`` is a Fisher-Yates
  shuffle with ``u32 % (n - i)``;
- ``normal_`` on fewer than 16 elements (or a non-contiguous float64 tensor) is Box-Muller in
  double precision, one pair per two values, the second value kept for the next call;
  16 and more are filled with uniforms first and transformed 16 at a time (pairs ``j`` and
  ``j + 8``; a tail redraws the last 16), float32 through the Cephes polynomials of
  ``avx_mathfun.h`` with torch's fused multiply-adds.

NumPy's ``MT19937`` bit generator supplies the raw 32-bit draws, so a draw costs what NumPy's
does; only the Fisher-Yates loop of ``randperm`` runs in Python.

>>> g = Generator().manual_seed(0)
>>> g.uniform(3, "float32").tolist()
[0.49625658988952637, 0.7682217955589294, 0.08847743272781372]
"""

from __future__ import annotations

import math
import os

import numpy as np

__all__ = ["Generator", "default_generator"]

_F32 = np.float32
_STATE_SIZE = 628
_MASK11, _MASK24, _MASK53 = (np.uint64(2 ** bits - 1) for bits in (11, 24, 53))


class Generator:
    """A CPU random number generator with torch's seeding and draws."""

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))   # torch: a random seed

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed) & (2 ** 64 - 1)
        self._bits = _mersenne_twister(self._seed & 0xFFFFFFFF)
        self._next_normal = None   # the second value of a Box-Muller pair, kept
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))
        return self._seed

    def get_state(self) -> np.ndarray:
        """The state, for ``set_state`` (agdebug's layout: the twister's 624 words and
        position, the kept Box-Muller value, the seed's two 32-bit halves; all exact)."""
        state = self._bits.state["state"]
        cached = math.nan if self._next_normal is None else self._next_normal
        halves = [float(self._seed >> 32), float(self._seed & 0xFFFFFFFF)]
        return np.concatenate([state["key"].astype(np.float64), [state["pos"], cached],
                               halves])

    def set_state(self, state) -> Generator:
        values = np.asarray(state, dtype=np.float64)
        if values.shape != (_STATE_SIZE,):
            raise RuntimeError(f"Expected a state of {_STATE_SIZE} values from "
                               "Generator.get_state()")
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": values[:624].astype(np.uint32),
                                      "pos": int(values[624])}}
        self._next_normal = None if math.isnan(values[625]) else float(values[625])
        self._seed = (int(values[626]) << 32) | int(values[627])
        return self

    # ---- raw draws ----
    def random32(self, n: int) -> np.ndarray:
        return self._bits.random_raw(n).astype(np.uint64)

    def random64(self, n: int) -> np.ndarray:
        pairs = self.random32(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]

    # ---- distributions ----
    def uniform(self, shape, dtype: str, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """Values in ``[low, high)``, as ``uniform_`` draws them for ``dtype``."""
        n = _count(shape)
        if dtype == "float64":
            unit = (self.random64(n) & _MASK53).astype(np.float64) * 2.0 ** -53
            if low == 0.0 and high == 1.0:   # unit * 1 + 0 is unit, without fma's 13 us
                return unit.reshape(shape)
            return _fma64(unit, high - low, low).reshape(shape)
        bits, mask = (_MASK11, 2.0 ** -11) if dtype == "float16" else (_MASK24, 2.0 ** -24)
        unit = (self.random32(n) & bits).astype(_F32) * _F32(mask)
        low32, high32 = _F32(low), _F32(high)
        return _fma32(unit, float(high32 - low32), float(low32)).astype(dtype).reshape(shape)

    def normal(self, shape, dtype: str, mean: float = 0.0, std: float = 1.0,
               contiguous: bool = True) -> np.ndarray:
        """Normal values, as ``normal_`` draws them for a tensor of ``dtype``."""
        n = _count(shape)
        if n >= 16 and contiguous:
            fill_dtype = "float64" if dtype == "float64" else "float32"
            return self._normal_fill(n, fill_dtype, mean, std).astype(dtype).reshape(shape)
        values = np.array([self._normal_one() for _ in range(n)], dtype=np.float64)
        return (values * std + mean).astype(dtype).reshape(shape)

    def randint(self, low: int, high: int, shape) -> np.ndarray:
        span, n = high - low, _count(shape)
        draws = self.random64(n) if span >= 2 ** 32 else self.random32(n)
        return ((draws % np.uint64(span)).astype(np.int64) + low).reshape(shape)

    def numpy_generator(self) -> np.random.Generator:
        """A NumPy generator seeded from this one's stream, for the draws whose algorithm
        agdebug does not share with torch (Poisson): repeatable, not torch's numbers."""
        return np.random.default_rng(int(self.random64(1)[0]))

    def randperm(self, n: int) -> np.ndarray:
        perm = np.arange(n, dtype=np.int64)
        draws = self.random32(max(n - 1, 0)).tolist()
        for i, draw in enumerate(draws):   # Fisher-Yates, as torch's CPU randperm
            j = i + draw % (n - i)
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    def exponential(self, shape, dtype, lambd: float = 1.0) -> np.ndarray:
        # (``dtype``: a name or a numpy dtype, read only by astype: multinomial passes its
        # probabilities' own, whose ``.name`` numpy would format each time)
        return (-np.log1p(-self.uniform(shape, "float64")) / lambd).astype(dtype)

    def geometric(self, shape, dtype: str, p: float) -> np.ndarray:
        return np.ceil(np.log(self.uniform(shape, "float64")) / math.log1p(-p)).astype(dtype)

    def cauchy(self, shape, dtype: str, median: float = 0.0, sigma: float = 1.0):
        unit = self.uniform(shape, "float64")
        return (median + sigma * np.tan(math.pi * (unit - 0.5))).astype(dtype)

    def log_normal(self, shape, dtype: str, mean: float = 1.0, std: float = 2.0):
        # torch draws these one by one (the double Box-Muller path), whatever their number
        values = np.array([self._normal_one() for _ in range(_count(shape))], dtype=np.float64)
        return np.exp(values * std + mean).astype(dtype).reshape(shape)

    def bernoulli(self, shape, p: float) -> np.ndarray:
        """Draws of 1 with probability ``p`` (a number: compared in double)."""
        return self.uniform(shape, "float64") < p

    def bernoulli_each(self, p: np.ndarray) -> np.ndarray:
        """One draw per probability in ``p`` (a tensor: compared in its own dtype)."""
        dtype = "float64" if p.dtype == np.float64 else "float32"
        return self.uniform(p.size, dtype).reshape(p.shape) < p

    def multinomial(self, probs: np.ndarray, n: int, replacement: bool) -> np.ndarray:
        """``n`` category indices per row of ``probs`` (2-d), as torch's CPU kernel draws
        them: with replacement by inverting the row's running sum at a double uniform;
        without, or for one sample (torch's fast path), the ``n`` largest of ``probs / q``
        for ``q ~ Exp(1)`` (the Gumbel trick)."""
        if not replacement or n == 1:
            q = self.exponential(probs.size, probs.dtype).reshape(probs.shape)
            keys = probs / q
            return np.argsort(-keys, axis=-1, kind="stable")[:, :n]
        rows = []
        for row in probs:
            running = np.cumsum(row)
            running = running / running[-1]
            rows.append(np.searchsorted(running, self.uniform(n, "float64"), side="left"))
        return np.stack(rows)

    # ---- normal, both of torch's paths ----
    def _normal_one(self) -> float:
        if self._next_normal is not None:
            value, self._next_normal = self._next_normal, None
            return value
        u1, u2 = ((self.random64(2) & _MASK53).astype(np.float64) * 2.0 ** -53).tolist()
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def _normal_fill(self, n: int, dtype: str, mean: float, std: float) -> np.ndarray:
        data = self.uniform(n, dtype)
        whole = n - n % 16
        fill = _fill16_float32 if dtype == "float32" else _fill16_float64
        data[:whole] = fill(data[:whole].reshape(-1, 16), mean, std).reshape(-1)
        if n % 16:   # torch redraws the last 16 and transforms them again
            data[n - 16:] = fill(self.uniform(16, dtype).reshape(1, 16), mean, std).reshape(-1)
        return data


def _count(shape) -> int:
    if type(shape) is int:   # (np.prod costs some 3 us, twice per randn)
        return shape
    return int(math.prod(shape)) if type(shape) is tuple else int(np.prod(shape, dtype=np.int64))


def _mersenne_twister(seed32: int) -> np.random.MT19937:
    """NumPy's MT19937 in the state ``std::mt19937(seed32)`` starts from."""
    key = np.empty(624, dtype=np.uint32)
    key[0] = value = seed32
    for i in range(1, 624):
        value = (1812433253 * (value ^ (value >> 30)) + i) & 0xFFFFFFFF
        key[i] = value
    bits = np.random.MT19937()
    bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": 624}}
    return bits


def _fma32(a: np.ndarray, b, c) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (the float64 product of float32s is exact). ``a``
    is a float32 array; ``b`` and ``c`` are float32 values held as float64 (Python floats or
    float64 arrays, see ``_f32``) where they can be: a ufunc call over mixed dtypes costs
    about twice one over float64 alone, and randn makes some twenty of these calls."""
    return (a.astype(np.float64) * b + c).astype(_F32)


def _f32(value) -> float:
    """``value`` rounded to float32, as the Python float ``_fma32`` takes."""
    return float(_F32(value))


def _c32(value) -> np.ndarray:
    """A constant ``_f32(value)`` held as a 0-d float64 array: ``_fma32`` takes it as it
    takes the Python float (the same float64 arithmetic), and a ufunc call with a 0-d array
    operand costs some 0.2 us less than with a Python float."""
    return np.array(_f32(value))


def _fma64(a, b, c) -> np.ndarray:
    """float64 ``a * b + c`` rounded once, near enough: the product's and the sum's rounding
    errors (Dekker's and Knuth's error-free transformations) are added back at the end."""
    a, b, c = np.asarray(a, np.float64), np.float64(b), np.float64(c)
    product = a * b
    split = 134217729.0   # 2**27 + 1: halves of 26 bits multiply exactly
    a_hi = a * split - (a * split - a)
    b_hi = b * split - (b * split - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    product_error = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (sum_error + product_error)


def _fill16_float64(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    u1, u2 = 1.0 - blocks[:, :8], blocks[:, 8:]
    radius = np.sqrt(-2.0 * np.log(u1))
    theta = 2.0 * math.pi * u2
    return np.concatenate([radius * np.cos(theta) * std + mean,
                           radius * np.sin(theta) * std + mean], axis=1)


def _fill16_float32(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    u1, u2 = _F32(1) - blocks[:, :8], blocks[:, 8:]
    radius = np.sqrt(_F32(-2) * _cephes_log(u1))
    sin, cos = _cephes_sincos(_F32(2 * math.pi) * u2)
    mean32, std32 = _f32(mean), _f32(std)
    return np.concatenate([_fma32(radius * cos, std32, mean32),
                           _fma32(radius * sin, std32, mean32)], axis=1)


_LOG_POLY = tuple(_c32(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))


def _cephes_log(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's ``log256_ps`` lane by lane, with the contractions torch's build makes."""
    x = np.maximum(x, np.array(0x00800000, np.uint32).view(_F32))
    bits = x.view(np.uint32)
    e = ((bits >> 23).astype(np.int32) - 0x7F).astype(_F32) + _F32(1)
    x = ((bits & np.uint32(0x807FFFFF)) | np.array(0.5, _F32).view(np.uint32)).view(_F32)
    small = x < _F32(0.707106781186547524)
    x = (x - _F32(1)) + np.where(small, x, _F32(0))
    e = e - small.astype(_F32)
    z = x * x
    x64, z64 = x.astype(np.float64), z.astype(np.float64)
    # the first step's y is the constant: its product taken as x * c (the same bits)
    y = (x64 * _LOG_POLY[0] + _LOG_POLY[1]).astype(_F32)
    for coefficient in _LOG_POLY[2:]:
        y = _fma32(y, x64, coefficient)
    y = _fma32(y * x, z64, e * _F32(-2.12194440e-4))
    y = _fma32(z, _HALF_DOWN, y)
    return _fma32(e, _LN2_HIGH, x + y)


_HALF_DOWN, _LN2_HIGH = _c32(-0.5), _c32(0.693359375)
_PI4_PARTS = tuple(_c32(part) for part in
                   (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8))
_COS_POLY = tuple(_c32(c) for c in (2.443315711809948e-5, -1.388731625493765e-3,
                                     4.166664568298827e-2))
_SIN_POLY = tuple(_c32(c) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))


def _cephes_sincos(theta: np.ndarray):
    """avx_mathfun's ``sincos256_ps`` lane by lane (Cephes' reduction by pi/4)."""
    bits = theta.view(np.uint32)
    x = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    octant = ((x * _F32(1.27323954473516)).astype(np.int32) + 1) & ~1
    sign_sin = (bits & np.uint32(0x80000000)) ^ ((octant & 4).astype(np.uint32) << 29)
    sign_cos = (~(octant - 2) & 4).astype(np.uint32) << 29
    y = octant.astype(_F32)
    for part in _PI4_PARTS:
        x = _fma32(y, part, x)
    z = x * x
    x64, z64 = x.astype(np.float64), z.astype(np.float64)
    # (a * b is b * a to the bit: the array goes first)
    cos = _fma32(z, _COS_POLY[0], _COS_POLY[1])
    cos = _fma32(cos, z64, _COS_POLY[2]) * z
    cos = _fma32(cos, z64, -(z * _F32(0.5))) + _F32(1)
    sin = _fma32(z, _SIN_POLY[0], _SIN_POLY[1])
    sin = _fma32(_fma32(sin, z64, _SIN_POLY[2]) * z, x64, x64)
    swapped = (octant & 2) != 0   # where the cosine's polynomial serves the sine
    cos_kept = cos.copy()   # (sin and cos are this call's own arrays: swapped in place)
    np.copyto(cos, sin, where=swapped)
    np.copyto(sin, cos_kept, where=swapped)
    return ((sin.view(np.uint32) ^ sign_sin).view(_F32),
            (cos.view(np.uint32) ^ sign_cos).view(_F32))


default_generator = Generator()

"""Cases for the antialiased upsample ops of agdebug/ops/nn/upsample.py (see harness.py):
``F.interpolate(..., antialias=True)`` in bilinear, bicubic and lanczos mode, and their
backward ops (reached through a first derivative taken with ``create_graph=True``)."""

from __future__ import annotations

import numpy as np

import agdebug.nn  # noqa: F401 - makes agdebug.nn.functional reachable as t.nn.functional

from .harness import Case

rng = np.random.default_rng(41)
IMAGE = rng.standard_normal((1, 2, 5, 7))
KEYWORDS = [   # (id suffix, interpolate's keywords): down, up, mixed, align_corners
    ("down", {"size": (2, 3)}),
    ("up", {"scale_factor": 1.6}),
    ("mixed_align", {"scale_factor": (0.5, 1.5), "align_corners": True}),
]
LANCZOS_KEYWORDS = [   # torch's interpolate refuses lanczos with align_corners=True
    *KEYWORDS[:2], ("mixed", {"scale_factor": (0.5, 1.5)}), ("taller", {"size": (9, 4)}),
]


def _interpolate(mode: str, keywords: dict):
    def fn(t, x):
        return t.nn.functional.interpolate(x, mode=mode, antialias=True, **keywords)
    return fn


def _interpolate_grad(mode: str, keywords: dict):
    def fn(t, g, x):
        with t.enable_grad():
            x = x.detach().requires_grad_()
            y = t.nn.functional.interpolate(x, mode=mode, antialias=True, **keywords)
            return t.autograd.grad(y, x, g, create_graph=True)[0]
    return fn


def _out_shape(keywords: dict) -> tuple:
    if "size" in keywords:
        return IMAGE.shape[:2] + keywords["size"]
    s = keywords["scale_factor"]
    scales = s if isinstance(s, tuple) else (s, s)
    return IMAGE.shape[:2] + tuple(int(np.floor(n * f)) for n, f in zip(IMAGE.shape[2:], scales))


CASES = []
for _mode, _keywords in (("bilinear", KEYWORDS), ("bicubic", KEYWORDS),
                         ("lanczos", LANCZOS_KEYWORDS)):
    _op = f"upsample_{_mode}2d_aa"
    for _suffix, _kw in _keywords:
        CASES.append(Case(_op, _interpolate(_mode, _kw), [IMAGE], id=f"{_op}_{_suffix}"))
        CASES.append(Case(f"{_op}_backward", _interpolate_grad(_mode, _kw),
                          [rng.standard_normal(_out_shape(_kw)), IMAGE],
                          id=f"{_op}_backward_{_suffix}"))

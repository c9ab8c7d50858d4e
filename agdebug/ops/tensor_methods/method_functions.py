"""torch functions that are a Tensor method under another spelling: ``torch.exp_(x)`` is
``x.exp_()``, ``torch.detach(x)`` is ``x.detach()``, ``torch.is_nonzero(x)``...

Each forwards to the method, so the graph, the version counter and the errors are the
method's; a first argument that is not a tensor gets torch's TypeError.
"""

from __future__ import annotations

from ...tensor import Tensor

__all__ = ["FUNCTIONS"]

_NAMES = (
    # in place, element-wise
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "deg2rad_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "i0_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_",
    "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_",
    # in place, with arguments
    "addmv_", "clamp_", "clamp_max_", "clamp_min_", "clip_", "fill_", "gcd_", "lcm_",
    "index_put_", "xlogy_", "zero_", "detach_",
    # queries and conversions
    "detach", "is_nonzero", "is_same_size", "is_signed", "is_conj", "is_neg", "is_inference",
    "resolve_conj", "resolve_neg", "conj", "conj_physical")


def _forwarding(name: str):
    def function(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``."
    return function


FUNCTIONS = {name: _forwarding(name) for name in _NAMES}

"""``nn.utils.parametrize``, ``nn.utils.parametrizations`` and the hook-based weight_norm /
spectral_norm against torch: values, gradients of the originals, state_dict keys, parameter
order, grad_fn names, removal, and torch's errors (type and whole message)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ..torch_parity import graph_names
from .module_parity import both

RNG = np.random.default_rng(5)
W = RNG.standard_normal((3, 4))
X = RNG.standard_normal((2, 4))
U = RNG.standard_normal(3)
V = RNG.standard_normal(4)
U, V = U / np.linalg.norm(U), V / np.linalg.norm(V)


def _error(fn) -> str:
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the error itself is compared
        return f"{type(e).__name__}: {e}"
    return "no error"


def _linear(lib, weight=W):
    lin = lib.nn.Linear(weight.shape[1], weight.shape[0]).double()
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(weight))
        lin.bias.copy_(lib.arange(weight.shape[0], dtype=lib.float64) / 10)
    return lin


def _param_names(module) -> list:
    return [name for name, _ in module.named_parameters()]


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


# ----------------------------------------------------------------------------- parametrize

def test_register_forward_backward_and_keys(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib, W[:3, :3]), "weight", _symmetric(lib))
        lin(lib.tensor(X[:, :3])).pow(2).sum().backward()
        return [type(lin).__name__, list(lin.state_dict()), _param_names(lin), repr(lin),
                graph_names(lin.weight), lin.weight, lin.parametrizations.weight.original.grad,
                P.is_parametrized(lin), P.is_parametrized(lin, "bias"),
                P.type_before_parametrizations(lin).__name__]
    both(torch, scenario)


def test_class_is_per_instance_and_restored(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin, other = _linear(lib), _linear(lib)
        P.register_parametrization(lin, "weight", lib.nn.Tanh())
        P.register_parametrization(lin, "bias", lib.nn.Tanh())
        names = [type(lin).__name__, type(other).__name__, hasattr(type(other), "weight")]
        P.remove_parametrizations(lin, "weight")
        names.append(type(lin).__name__)
        P.remove_parametrizations(lin, "bias", leave_parametrized=False)
        return names + [type(lin).__name__, _param_names(lin), lin.weight, lin.bias,
                        hasattr(lin, "parametrizations")]
    both(torch, scenario)


def test_assignment_runs_right_inverse_and_keeps_the_parameter(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib, W[:3, :3]), "weight", _symmetric(lib))
        original = lin.parametrizations.weight.original
        lin.weight = lib.tensor(W[:3, :3] * 2)
        return [original is lin.parametrizations.weight.original, original, lin.weight]
    both(torch, scenario)


def test_chained_parametrizations_and_remove_leaves_the_value(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib, W[:3, :3]), "weight", _symmetric(lib))
        P.register_parametrization(lin, "weight", lib.nn.Tanh())
        out = [repr(lin.parametrizations.weight), graph_names(lin.weight), lin.weight]
        P.remove_parametrizations(lin, "weight")
        return out + [lin.weight, type(lin.weight).__name__, _param_names(lin)]
    both(torch, scenario)


def test_remove_without_leaving_parametrized_restores_the_original(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib), "weight", lib.nn.Tanh())
        P.remove_parametrizations(lin, "weight", leave_parametrized=False)
        return [lin.weight, lin.weight.requires_grad]
    both(torch, scenario)


def test_cached_computes_once(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib), "weight", lib.nn.Tanh())
        with P.cached():
            inside = lin.weight is lin.weight
            with P.cached():
                nested = lin.weight is lin.weight
        return [inside, nested, lin.weight is lin.weight]
    both(torch, scenario)


def test_parametrizing_a_buffer(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        bn = lib.nn.BatchNorm1d(3).double()
        P.register_parametrization(bn, "running_var", lib.nn.Softplus())
        return [list(bn.state_dict()), _param_names(bn), bn.running_var,
                graph_names(bn.running_var)]
    both(torch, scenario)


class _Split:
    """A parametrization from two tensors (right_inverse returns a tuple)."""

    @staticmethod
    def make(lib):
        class Split(lib.nn.Module):
            def forward(self, a, b):
                return a * b

            def right_inverse(self, w):
                return w.abs(), w.sign()
        return Split()


def test_right_inverse_returning_a_tuple(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib), "weight", _Split.make(lib))
        plist = lin.parametrizations.weight
        lin(lib.tensor(X)).sum().backward()
        out = [_param_names(lin), plist.is_tensor, plist.ntensors, hasattr(plist, "original"),
               plist.original0.grad, plist.original1.grad, graph_names(lin.weight)]
        out.append(_error(lambda: P.remove_parametrizations(lin, "weight", False)))
        P.remove_parametrizations(lin, "weight")
        return out + [_param_names(lin), type(lin.weight).__name__, lin.weight]
    both(torch, scenario)


@pytest.mark.parametrize("case", ["missing", "shape", "dtype", "not_tensor", "remove_missing",
                                  "chained_shape", "no_right_inverse", "right_inverse_dtype",
                                  "empty_list"])
def test_errors(torch, case):
    def scenario(lib):
        P, nn = lib.nn.utils.parametrize, lib.nn

        class ToFloat(nn.Module):
            def forward(self, x):
                return x.float()

        class NotTensor(nn.Module):
            def forward(self, x):
                return 1.0

        class Cast(nn.Module):
            def forward(self, x):
                return x

            def right_inverse(self, x):
                return x.float()
        lin = _linear(lib)
        calls = {
            "missing": lambda: P.register_parametrization(lin, "foo", nn.Tanh()),
            "shape": lambda: P.register_parametrization(lin, "weight", nn.Flatten(0)),
            "dtype": lambda: P.register_parametrization(lin, "weight", ToFloat()),
            "not_tensor": lambda: P.register_parametrization(lin, "weight", NotTensor()),
            "remove_missing": lambda: P.remove_parametrizations(lin, "weight"),
            "chained_shape": lambda: P.register_parametrization(
                P.register_parametrization(lin, "weight", nn.Tanh()), "weight", nn.Flatten(0)),
            "no_right_inverse": lambda: setattr(
                P.register_parametrization(lin, "weight", nn.Tanh()), "weight",
                lib.zeros(3, 4)),
            "right_inverse_dtype": lambda: P.register_parametrization(lin, "weight", Cast()),
            "empty_list": lambda: P.ParametrizationList([], lin.weight),
        }
        return [_error(calls[case]), _param_names(lin)]
    both(torch, scenario)


def test_unsafe_allows_a_shape_change(torch):
    def scenario(lib):
        P = lib.nn.utils.parametrize
        lin = P.register_parametrization(_linear(lib), "weight", lib.nn.Flatten(0), unsafe=True)
        return [lin.weight, lin.parametrizations.weight.unsafe]
    both(torch, scenario)


# ----------------------------------------------------------------------------- weight_norm

@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_parametrization(torch, dim):
    def scenario(lib):
        lin = lib.nn.utils.parametrizations.weight_norm(_linear(lib), dim=dim)
        plist = lin.parametrizations.weight
        lin(lib.tensor(X)).pow(2).sum().backward()
        out = [list(lin.state_dict()), _param_names(lin), graph_names(lin.weight), lin.weight,
               plist.original0, plist.original0.grad, plist.original1.grad]
        lib.nn.utils.parametrize.remove_parametrizations(lin, "weight")
        return out + [_param_names(lin), lin.weight, lin.weight.requires_grad]
    both(torch, scenario)


def test_weight_norm_on_a_conv_weight(torch):
    def scenario(lib):
        conv = lib.nn.Conv2d(2, 3, 2).double()
        with lib.no_grad():
            conv.weight.copy_(lib.arange(24, dtype=lib.float64).reshape(3, 2, 2, 2).sin())
        lib.nn.utils.parametrizations.weight_norm(conv, dim=1)
        return [graph_names(conv.weight), conv.weight, conv.parametrizations.weight.original0]
    both(torch, scenario)


def test_weight_norm_hook(torch):
    def scenario(lib):
        U_ = lib.nn.utils
        lin = _linear(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            U_.weight_norm(lin)
        out = [[str(w.message) for w in caught], [w.category.__name__ for w in caught],
               _param_names(lin), list(lin.state_dict()), lin.weight_g,
               graph_names(lin.weight)]
        with lib.no_grad():
            lin.weight_g.mul_(2)
        lin(lib.tensor(X)).sum().backward()   # the pre-hook recomputes the weight
        out += [lin.weight, lin.weight_g.grad, lin.weight_v.grad,
                _error(lambda: U_.weight_norm(lin))]
        U_.remove_weight_norm(lin)
        return out + [_param_names(lin), lin.weight, type(lin.weight).__name__,
                      _error(lambda: U_.remove_weight_norm(lin))]
    both(torch, scenario)


# ----------------------------------------------------------------------------- spectral_norm

def _spectral(lib, training: bool):
    lin = lib.nn.utils.parametrizations.spectral_norm(_linear(lib))
    sn = lin.parametrizations.weight[0]
    with lib.no_grad():   # the random start is not comparable: both start from U, V
        sn._u.copy_(lib.tensor(U))
        sn._v.copy_(lib.tensor(V))
    lin.train(training)
    return lin, sn


@pytest.mark.parametrize("training", [True, False])
def test_spectral_norm_parametrization(torch, training):
    def scenario(lib):
        lin, sn = _spectral(lib, training)
        u_before = sn._u
        lin(lib.tensor(X)).pow(2).sum().backward()
        return [list(lin.state_dict()), _param_names(lin), sn._u is u_before, sn._u, sn._v,
                lin.parametrizations.weight.original.grad, graph_names(lin.weight),
                lin.weight]
    both(torch, scenario)


def test_spectral_norm_on_conv_transpose_and_vector(torch):
    def scenario(lib):
        PZ = lib.nn.utils.parametrizations
        conv = PZ.spectral_norm(lib.nn.ConvTranspose2d(2, 3, 2))
        sn = conv.parametrizations.weight[0]
        lin = PZ.spectral_norm(lib.nn.Linear(2, 2), name="bias")
        with lib.no_grad():
            lin.parametrizations.bias.original.copy_(lib.tensor([3.0, 4.0]))
        return [sn.dim, tuple(sn._u.shape), tuple(sn._v.shape), lin.bias,
                graph_names(lin.bias)]
    both(torch, scenario)


@pytest.mark.parametrize("call", [
    "PZ.spectral_norm(lib.nn.Linear(2, 2), dim=2)",
    "PZ.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)",
    "PZ.spectral_norm(lib.nn.Linear(2, 2), name='foo')",
])
def test_spectral_norm_errors(torch, call):
    def scenario(lib):
        return _error(lambda: eval(call, {"PZ": lib.nn.utils.parametrizations, "lib": lib}))
    both(torch, scenario)


@pytest.mark.parametrize("training", [True, False])
def test_spectral_norm_hook(torch, training):
    def scenario(lib):
        U_ = lib.nn.utils
        lin = U_.spectral_norm(_linear(lib))
        with lib.no_grad():
            lin.weight_u.copy_(lib.tensor(U))
            lin.weight_v.copy_(lib.tensor(V))
        lin.train(training)
        out = [list(lin.state_dict()), _param_names(lin)]
        lin(lib.tensor(X)).pow(2).sum().backward()
        out += [lin.weight_u, lin.weight_v, lin.weight, graph_names(lin.weight),
                lin.weight_orig.grad, _error(lambda: U_.spectral_norm(lin))]
        U_.remove_spectral_norm(lin)
        return out + [_param_names(lin), list(lin.state_dict()), lin.weight,
                      _error(lambda: U_.remove_spectral_norm(lin))]
    both(torch, scenario)


# ----------------------------------------------------------------------------- the functions

@pytest.mark.parametrize("expr", [
    "lib._weight_norm(v, g, 0)", "lib._weight_norm(v.t(), g.t(), 1)",
    "lib._weight_norm(v, g.reshape(3), 0)", "lib.norm_except_dim(v, 2, 1)",
    "lib.norm_except_dim(v, 2, -1)", "lib.norm_except_dim(v.reshape(3, 2, 2), 2, 1)",
    "lib._weight_norm(v.reshape(3, 2, 2), g.reshape(3, 1, 1), -1)",
    "lib._weight_norm_interface(v, g, 0)[1]", "lib.vdot(v[0], v[1])",
    "lib.vdot(v, v[0])", "lib.vdot(v[0], v[1].float())", "lib.vdot(v[0], v[1, :3])",
])
def test_functions(torch, expr):
    from ..torch_parity import assert_same_with_grads
    setup = {"v": "lib.tensor(W, requires_grad=True)",
             "g": "lib.tensor([[0.5], [-1.0], [2.0]], dtype=lib.float64, requires_grad=True)"}
    assert_same_with_grads(torch, expr, {"W": "__import__('numpy').arange(12.0).reshape(3, 4)"
                                         " % 5 - 2", **setup})


def test_weight_norm_in_float16(torch):
    """float16 takes the fused node too, which (as torch's kernel) wants v and g of one dtype;
    a middle dim is computed by ``*`` and ``/``, which promote."""
    def scenario(lib):
        v = lib.tensor(W, dtype=lib.float16, requires_grad=True)
        g = lib.tensor([[0.5], [-1.0], [2.0]], dtype=lib.float16)
        w, last = lib._weight_norm(v, g, 0), lib._weight_norm(v, g[:1].repeat(1, 4), 1)
        middle = lib._weight_norm(v.reshape(3, 2, 2), lib.ones(1, 2, 1), 1)
        return [w, w.grad_fn.name(), last.grad_fn.name(),
                _error(lambda: lib._weight_norm(v, g.float(), 0)),
                _error(lambda: lib._weight_norm(v.double(), g.float(), 1)),
                _error(lambda: lib._weight_norm_interface(v, g.double(), 0)),
                str(middle.dtype), middle.grad_fn.name()]
    both(torch, scenario)

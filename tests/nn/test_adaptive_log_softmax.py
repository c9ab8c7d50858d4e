"""nn.AdaptiveLogSoftmaxWithLoss against torch: with one seed the same parameters (state_dict
keys and values), repr, output and loss, gradients, log_prob, predict and errors."""

from __future__ import annotations

import functools

from .module_parity import both, raised

import agdebug as ag


def _asm(lib, **options):
    lib.manual_seed(3)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3, 7], **options).double()


def _forward(lib, target, head_bias=False):
    asm = _asm(lib, head_bias=head_bias)
    x = lib.randn(len(target), 8, dtype=lib.float64, requires_grad=True)
    out = asm(x, lib.tensor(target))
    (out.loss + (out.output * out.output.detach().cos()).sum()).backward()
    return {"state": asm.state_dict(), "output": out.output, "loss": out.loss,
            "graph": [out.output.grad_fn.name(), out.loss.grad_fn.name()],
            "grads": [p.grad for p in asm.parameters()], "x.grad": x.grad,
            "repr": repr(asm), "fields": list(out._fields)}


def test_forward_and_gradients_match_torch(torch):
    both(torch, lambda lib: _forward(lib, [0, 5, 11, 2, 8, 3]))
    both(torch, lambda lib: _forward(lib, [4, 6, 6], head_bias=True))   # no shortlist rows


def test_unbatched_input_matches_torch(torch):
    def scenario(lib):
        out = _asm(lib)(lib.randn(8, dtype=lib.float64), lib.tensor(9))
        return out.output, out.loss
    both(torch, scenario)


def test_log_prob_and_predict_match_torch(torch):
    def scenario(lib):
        asm = _asm(lib, div_value=2.0)
        x = lib.randn(20, 8, dtype=lib.float64) * 3
        log_prob = asm.log_prob(x)
        return (log_prob, log_prob.exp().sum(1), asm.predict(x), asm.predict(x[:1] * 0),
                asm.predict(x[log_prob.argmax(1) >= 3]))
    both(torch, scenario)


def test_errors_match_torch(torch):
    cases = [
        lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[]),
        lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[5, 3]),
        lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3, 12]),
        lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 12, cutoffs=[3, 3]),
        lambda lib: _asm(lib)(lib.randn(3, 8), lib.tensor([0, 1])),
        lambda lib: _asm(lib)(lib.randn(2, 2, 8), lib.tensor([0, 1])),
        lambda lib: _asm(lib)(lib.randn(2, 8), lib.tensor(1)),
        lambda lib: _asm(lib)(lib.randn(2, 8), lib.tensor([[0, 1]])),
        lambda lib: _asm(lib)(lib.randn(2, 8, dtype=lib.float64), lib.tensor([0, 12])),
        lambda lib: _asm(lib)(lib.randn(2, 8, dtype=lib.float64), lib.tensor([-1, 3])),
    ]
    for case in cases:
        want = raised(functools.partial(case, torch))
        assert want is not None
        assert raised(functools.partial(case, ag)) == want

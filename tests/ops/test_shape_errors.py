"""Shape and reduction ops: torch's error types and texts, multi-output results, views."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agdebug as ag

# (expression, the names it may use). Each runs with lib = agdebug and lib = torch.
BAD_CALLS = [
    "lib.ones(2, 3).sum(2)",
    "lib.ones(2, 3).amax(-3)",
    "lib.ones(2, 3).var((0, 0))",
    "lib.ones(2, 3, dtype=lib.int32).var()",
    "lib.ones(2, 0).max()",
    "lib.ones(2, 0).amin()",
    "lib.ones(2, 0).max(1)",
    "lib.ones(2, 0).argmax()",
    "lib.ones(2, 3).max(2)",
    "lib.ones(2, 3, dtype=lib.int64).norm()",
    "lib.ones(2, 3).transpose(0, 2)",
    "lib.ones(2, 3).permute(0)",
    "lib.ones(2, 3).permute(0, 0)",
    "lib.ones(2, 3).permute(1, -1)",
    "lib.ones(2, 3).squeeze(3)",
    "lib.ones(2, 3).squeeze((0, 2))",
    "lib.ones(2, 3).unsqueeze(4)",
    "lib.tensor(3.0).unsqueeze(1)",
    "lib.ones(2, 3).flatten(0, 2)",
    "lib.ones(2, 3).flatten(1, 0)",
    "lib.ones(2, 3, 4).t()",
    "lib.ones(3).mT",
    "lib.ones(2, 3).repeat(2)",
    "lib.ones(2, 3).repeat(-1, 1)",
    "lib.cat([lib.ones(2, 3), lib.ones(2, 4)])",
    "lib.cat([lib.ones(2, 3), lib.ones(3, 3)], 1)",
    "lib.cat([lib.ones(2, 3), lib.ones(3)])",
    "lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 2)",
    "lib.cat([])",
    "lib.cat([lib.tensor(1.0), lib.tensor(2.0)])",
    "lib.stack([lib.ones(3), lib.ones(4)])",
    "lib.stack([])",
    "lib.stack([lib.ones(2, 3), lib.ones(2, 3)], 3)",
    "lib.ones(2, 3).split([1, 1], 1)",
    "lib.ones(2, 3).split(0)",
    "lib.ones(2, 3).split(-1)",
    "lib.ones(2, 3).chunk(0)",
    "lib.ones(2, 3).unbind(2)",
    "lib.ones(2, 3).narrow(0, 1, 5)",
    "lib.ones(2, 3).narrow(0, 3, 0)",
    "lib.ones(2, 3).narrow(0, 0, -1)",
    "lib.tensor(1.0).narrow(0, 0, 1)",
    "lib.ones(2, 3).flip(0, 0)",
    "lib.ones(6).reshape(4, 2)",
    "lib.ones(2, 3).t().view(-1)",
    # a shape argument missing (torch's signatures require it) or given twice
    "lib.ones(2, 3).flip()",
    "lib.ones(2, 3).repeat()",
    "lib.ones(2, 3).expand()",
    "lib.ones(2, 3).permute()",
    "lib.ones(2, 3).reshape()",
    "lib.tensor(1.0).permute()",
    "lib.flip(lib.ones(2, 3))",
    "lib.ones(2, 3).flip(0, dims=(1,))",
    "lib.ones(1, 2, 1).squeeze((0, -3))",
    "lib.tensor(1.0).flatten(0, 1)",
]


def _error(lib, expression):
    with pytest.raises(Exception) as info:
        eval(expression, {"lib": lib})
    return type(info.value), str(info.value)


@pytest.mark.parametrize("expression", BAD_CALLS)
def test_error_matches_torch(expression, torch):
    kind, text = _error(ag, expression)
    torch_kind, torch_text = _error(torch, expression)
    assert kind is torch_kind
    assert text == torch_text.splitlines()[0]


def test_view_without_a_shape_is_a_type_error(torch):
    # (torch's message goes on to list its signatures: the first line only is compared)
    kind, text = _error(ag, "lib.ones(2, 3).view()")
    torch_kind, torch_text = _error(torch, "lib.ones(2, 3).view()")
    assert kind is torch_kind is TypeError
    assert text == torch_text


def test_max_with_dim_returns_values_and_indices():
    x = ag.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    result = x.max(dim=1)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert type(result).__name__ == "max"
    assert indices.tolist() == [1, 0] and indices.dtype == ag.int64
    assert values.grad_fn.name() == "MaxBackward0"
    assert indices.grad_fn is None and not indices.requires_grad
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_min_with_keepdim_and_the_elementwise_form():
    x = ag.tensor([[1.0, 5.0], [7.0, 0.0]], requires_grad=True)
    result = ag.min(x, 0, keepdim=True)
    assert result.indices.tolist() == [[0, 1]]
    assert ag.max(x, x * 2).grad_fn.name() == "MaximumBackward0"
    assert x.min(other=x).grad_fn.name() == "MinimumBackward0"


def test_ties_split_evenly_for_full_max_but_go_to_one_index_with_dim(torch):
    data = [[2.0, 2.0, 1.0], [2.0, 0.0, 2.0]]
    for expression in ("x.max()", "x.amax(1)", "x.max(1).values", "x.min(1).values", "x.min()"):
        x = ag.tensor(data, requires_grad=True)
        y = torch.tensor(data, requires_grad=True)
        eval(expression, {"x": x}).sum().backward()
        eval(expression, {"x": y}).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), err_msg=expression)


def test_prod_gradient_with_zeros(torch):
    for data in ([[0.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [3.0, 4.0]], [[0.0, 2.0], [0.0, 4.0]]):
        x = ag.tensor(data, requires_grad=True)
        y = torch.tensor(data, requires_grad=True)
        (x.prod() + x.prod(1).sum() + x.prod(0).sum()).backward()
        (y.prod() + y.prod(1).sum() + y.prod(0).sum()).backward()
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy())


def test_norm_and_std_gradients_at_zero_are_zero():
    x = ag.zeros(3, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x.grad = None
    (x * 0 + 1).std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_var_warns_when_degrees_of_freedom_run_out(torch):
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0") as ours:
        value = ag.ones(1).var()
    assert np.isnan(value.item())
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.ones(1).var()
    assert str(theirs[0].message).startswith(str(ours[0].message))


def test_logsumexp_is_stable():
    x = ag.tensor([1000.0, 1000.0, -float("inf")])
    assert abs(x.logsumexp(0).item() - (1000.0 + np.log(2.0))) < 1e-3
    assert ag.full((2,), -float("inf")).logsumexp(0).item() == -float("inf")


def test_views_share_the_version_counter():
    base = ag.zeros(2, 3)
    views = [base.t(), base.T, base.permute(1, 0), base.unsqueeze(0), base.narrow(1, 0, 2),
             base.transpose(0, 1), base.split(1)[0], base.unbind(0)[1], base.view(6)]
    base.add_(1)
    for v in views:
        assert v._version == base._version == 1
        assert v._base is base
    views[0].add_(1)
    assert base._version == 2 and base.sum().item() == 12.0


def test_copies_do_not_share_storage():
    base = ag.zeros(2, 3)
    for copy in (base.flip(0), base.repeat(1, 1), ag.cat([base]), ag.stack([base])):
        copy.add_(1)
        assert base.sum().item() == 0.0 and base._version == 0


def test_identity_cases_return_the_input_itself():
    x = ag.ones(3, requires_grad=True)
    assert x.flatten() is x
    m = ag.ones(2, 3, requires_grad=True)
    assert m.contiguous() is m
    assert m.flatten(1, 1) is m
    assert m.t().contiguous().grad_fn.name() == "CloneBackward0"
    assert m.t().contiguous().is_contiguous()


def test_T_on_other_ranks_warns_like_torch(torch):
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert ag.ones(2, 3, 4).T.shape == (4, 3, 2)
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        assert ag.tensor(2.0).T.shape == ()


def test_split_and_chunk_piece_sizes_match_torch(torch):
    for expression in ("x.split(2)", "x.split([1, 4], 0)", "x.chunk(3)", "x.chunk(2)",
                       "x.chunk(4)", "x.unbind()", "lib.split(x, 5)"):
        ours = eval(expression, {"x": ag.ones(5, 2), "lib": ag})
        theirs = eval(expression, {"x": torch.ones(5, 2), "lib": torch})
        assert isinstance(ours, tuple)
        assert [tuple(p.shape) for p in ours] == [tuple(p.shape) for p in theirs], expression


def test_multi_output_gradient_flows_from_unused_pieces_as_zeros():
    x = ag.arange(6.0).reshape(2, 3).requires_grad_()
    a, b = x.split([1, 2], 1)
    (b * 2).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 2.0], [0.0, 2.0, 2.0]]
    assert a.grad_fn is b.grad_fn

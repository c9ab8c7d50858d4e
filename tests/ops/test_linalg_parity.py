"""Matrix and linear-algebra functions compared with torch: dtypes, argument variants,
empty tensors, graphs (grad_fn names) and error messages (see tests/torch_parity.py)."""

from __future__ import annotations

import numpy as np
import pytest

import agdebug as ag
from tests.torch_parity import assert_same_as_torch

torch = pytest.importorskip("torch")

SETUP = {
    "a": "lib.arange(12.0).reshape(3, 4).requires_grad_()",
    "s": "lib.arange(9.0).reshape(3, 3).requires_grad_()",
    "v": "lib.tensor([1.0, -2.0, 3.0], requires_grad=True)",
    "w": "lib.tensor([0.5, 1.0, 2.0, -1.0], requires_grad=True)",
    "b": "lib.arange(24.0).reshape(2, 3, 4).requires_grad_()",
    "c": "lib.arange(40.0).reshape(2, 4, 5).requires_grad_()",
    "i": "lib.arange(12).reshape(3, 4)",
}

EXPRESSIONS = [
    # inf and -inf norms over an empty dimension have no identity: torch's words
    "lib.linalg.vector_norm(lib.ones(0, 3), float('inf'))",
    "lib.linalg.vector_norm(lib.ones(0, 3), -float('inf'), dim=0)",
    "lib.linalg.vector_norm(lib.ones(0, 3), float('inf'), dim=(1, 0))",
    "lib.linalg.vector_norm(lib.ones(0, 3), float('inf'), dim=-2)",
    "lib.linalg.vector_norm(lib.ones(0, 3), float('inf'), dim=1)",
    "lib.linalg.vector_norm(lib.tensor(3.0), float('inf'), dim=0)",
    # addmm and linear: dtypes compared (self first) before shapes, in addmm's words
    "lib.addmm(lib.ones(4), lib.ones(2, 3, dtype=lib.float64), lib.ones(2, 4))",
    "lib.addmm(lib.ones(4, dtype=lib.float64), lib.ones(2, 3, dtype=lib.float64), lib.ones(2, 4))",
    "lib.addmm(lib.ones(4, dtype=lib.int64), lib.ones(2, 3), lib.ones(3, 4))",
    "lib.addmm(lib.ones(4), lib.ones(2, 3), lib.ones(2, 4))",
    "lib.nn.functional.linear(lib.ones(2, 3, dtype=lib.float64), lib.ones(4, 3), lib.ones(4))",
    "lib.nn.functional.linear(lib.ones(5, 2, 3, dtype=lib.float64), lib.ones(4, 3), lib.ones(4))",
    "lib.nn.functional.linear(lib.ones(2, 3, dtype=lib.float64), lib.ones(4, 3))",
    # diagonal / diag / diag_embed / diagflat / trace
    "a.diagonal()", "a.diagonal(1)", "a.diagonal(-2)", "a.diagonal(5)",
    "b.diagonal(0, -1, 0)", "lib.diagonal(b, 1, 2, 1)", "i.diagonal()",
    "lib.ones(3).diagonal()", "a.diagonal(0, 0, 0)", "a.diagonal(0, 0, 2)",
    "lib.diag(a)", "lib.diag(a, 1)", "lib.diag(v)", "lib.diag(v, -1)", "i.diag()",
    "lib.diag(b)", "lib.diag(lib.tensor(1.0))",
    "lib.diag_embed(a)", "lib.diag_embed(v, 1, 0, 1)", "lib.diag_embed(a, 0, 0, 0)",
    "lib.diag_embed(lib.tensor(1.0))", "lib.diagflat(a)", "lib.diagflat(lib.tensor(2.0))",
    "a.trace()", "s.trace()", "i.trace()", "lib.ones(2, 2, dtype=lib.int32).trace()",
    "lib.ones(2, 2, dtype=lib.bool).trace()", "b.trace()", "v.trace()",
    "lib.zeros(0, 3).trace()",
    # tril / triu
    "a.tril()", "a.tril(1)", "b.triu(-1)", "lib.tril(a, diagonal=-5)", "i.triu(2)",
    "lib.ones(2, 3, dtype=lib.bool).tril()", "v.tril()", "lib.tensor(1.0).triu()",
    "(a * 1).tril_(1)", "(b * 1).triu_()", "lib.zeros(0, 2).tril()",
    "lib.tril_indices(3, 3)", "lib.tril_indices(3, 4, -1)", "lib.triu_indices(4, 3, 1)",
    "lib.triu_indices(0, 3)", "lib.tril_indices(3, 3, dtype=lib.int32)",
    "lib.tril_indices(3, 3, dtype=lib.float32)", "lib.tril_indices(-1, 3)",
    # block_diag / kron
    "lib.block_diag(a, v, lib.tensor(2.0))", "lib.block_diag(i, lib.ones(1, 2))",
    "lib.block_diag(lib.ones(2, 2, 2))", "lib.block_diag(lib.zeros(0, 2), s)", "lib.block_diag()",
    "lib.kron(a, v)", "lib.kron(i, i)", "lib.kron(lib.tensor(2.0), v)", "a.kron(b)",
    # add* family
    "lib.addmv(v, a, w)", "lib.addmv(lib.tensor(1.0), a, w, beta=0.5, alpha=2)",
    "lib.addmv(v, a, v)", "lib.addmv(v, v, w)", "lib.addmv(w, a, w)",
    "lib.addr(a, v, w)", "v.outer(w).addr(v, w, beta=0, alpha=-1)", "lib.addr(a, a, w)",
    "lib.addr(lib.ones(2), v, w)",
    "lib.baddbmm(lib.zeros(2, 3, 5), b, c)", "lib.baddbmm(lib.zeros(5), b, c, alpha=0.5)",
    "lib.baddbmm(lib.zeros(5), a, c)", "lib.baddbmm(lib.zeros(5), b, b)",
    "lib.addbmm(lib.zeros(3, 5), b, c)", "lib.addbmm(lib.ones(1), b, c, beta=2)",
    "lib.addbmm(lib.zeros(3, 5), a, c)",
    # einsum
    "lib.einsum('ij,jk->ik', a, a.t())", "lib.einsum('ij,jk', a, a.t())",
    "lib.einsum('bij,bjk->bik', b, c)", "lib.einsum('ii->i', s)", "lib.einsum('ii', s)",
    "lib.einsum('i,i->', v, v)", "lib.einsum('ij->ji', a)", "lib.einsum('ij->', a)",
    "lib.einsum('i,j->ij', v, w)", "lib.einsum('...j,j->...', b, w)",
    "lib.einsum('bij,bkj->bik', b, b)", "lib.einsum('ij,jk,kl->il', a, a.t(), s)",
    "lib.einsum('ij,jk->ik', [a, a.t()])", "lib.einsum('ij,jk->ik', i, i.t())",
    "lib.einsum('ij,jk->ik', a)", "lib.einsum('ij->ik', a)", "lib.einsum('ijk->i', a)",
    "lib.einsum('ii->i', a)", "lib.einsum('i1->i', a)", "lib.einsum('ij->ii', a)",
    "lib.einsum('i,i->', v, w)", "lib.einsum('ij,ij->ij', a, b)",
    # tensordot / inner / multi_dot / chain_matmul
    "lib.tensordot(a, a.t(), dims=1)", "lib.tensordot(b, c, dims=([2], [1]))",
    "lib.tensordot(a, a)", "lib.tensordot(v, v, dims=0)", "lib.tensordot(a, b, dims=-1)",
    "lib.tensordot(a, a, dims=([0], [1]))", "lib.tensordot(a, s, dims=([0, 1], [0]))",
    "lib.inner(v, v)", "lib.inner(a, b)", "v.inner(lib.tensor(2.0))", "lib.inner(a, v)",
    "lib.linalg.multi_dot([a, a.t(), s])", "lib.linalg.multi_dot([v, s, v])",
    "lib.linalg.multi_dot([w, a.t(), s, v])", "lib.linalg.multi_dot([a])",
    "lib.linalg.multi_dot([b, a])", "lib.linalg.multi_dot([a, a])",
    "lib.linalg.multi_dot([a, v.double()])", "lib.chain_matmul(a, a.t(), s)",
    "lib.chain_matmul(a)", "lib.chain_matmul(a, v)",
    # cross / dist / cdist
    "lib.cross(s, s.flip(0), dim=1)", "lib.linalg.cross(s, s.flip(0))",
    "lib.linalg.cross(b[..., :3], b[:1, :, 1:])", "lib.linalg.cross(a, a)",
    "lib.linalg.cross(v, s)", "lib.linalg.cross(s, s, dim=0)", "s.cross(s.flip(1), -2)",
    "lib.dist(a, a.flip(0))", "lib.dist(a, w, 1)", "lib.dist(a, a, 3)",
    "a.dist(w, float('inf'))", "lib.dist(i, i)", "lib.dist(a, lib.zeros(2))",
    "a.dist(w, -float('inf'))", "lib.dist(a, a, -float('inf'))",
    "lib.dist(lib.ones(0), lib.ones(0), float('inf'))", "lib.dist(a[:0], w, -float('inf'))",
    "lib.dist(lib.ones(0), lib.ones(0), 2)",
    "lib.cdist(a, a + 1)", "lib.cdist(b, c[:, :, :4], p=1)", "lib.cdist(a, a, p=0)",
    "lib.cdist(lib.zeros(30, 4), a)", "lib.cdist(b, lib.zeros(1, 30, 4))",
    "lib.cdist(a, a, compute_mode='use_mm_for_euclid_dist')", "lib.cdist(v, v)",
    "lib.cdist(a, s)", "lib.cdist(a, a, p=-1)", "lib.cdist(i, i)",
    "lib.cdist(lib.zeros(0, 4), a)",
    # pdist (a transposed input is made contiguous, as torch does)
    "lib.pdist(a)", "lib.pdist(a, 1)", "lib.pdist(a.t(), 0.5)", "lib.pdist(a, float('inf'))",
    "lib.nn.functional.pdist(s, p=3)", "lib.pdist(a[:1])", "lib.pdist(a[:, :0])",
    "lib.pdist(v)", "lib.pdist(b)", "lib.pdist(a, -1)", "lib.pdist(i)",
    "lib.pdist(a.half())", "lib.pdist(a, 'a')", "lib.pdist(a, None)",
    # linalg norms
    "lib.linalg.norm(a)", "lib.linalg.norm(a, 'fro')", "lib.linalg.norm(a, 1)",
    "lib.linalg.norm(a, -1)", "lib.linalg.norm(a, float('inf'))", "lib.linalg.norm(v, 3)",
    "lib.linalg.norm(b, dim=(0, 2))", "lib.linalg.norm(b, dim=1)", "lib.linalg.norm(b, 1)",
    "lib.linalg.norm(b, keepdim=True)", "lib.linalg.norm(a, 2.5, dim=0)",
    "lib.linalg.vector_norm(b, 1, dim=(0, 1))", "lib.linalg.matrix_norm(b)",
    "lib.linalg.matrix_norm(b, float('-inf'), dim=(2, 0), keepdim=True)",
    "lib.linalg.matrix_norm(b, 1, dim=(-1, -2))", "lib.linalg.matrix_norm(v)",
    "lib.linalg.matrix_norm(b, dim=(1, 1))", "lib.linalg.diagonal(b)",
    "lib.linalg.diagonal(b, offset=1, dim1=0, dim2=2)", "lib.linalg.matmul(a, w)",
    # batch dims that do not broadcast: torch names the last one that differs
    "lib.matmul(lib.ones(2, 3, 4, 5), lib.ones(3, 2, 5, 6))",
    "lib.matmul(lib.ones(4, 1, 2, 3), lib.ones(3, 3, 2))",
    "lib.cdist(lib.ones(2, 3, 4, 5), lib.ones(3, 2, 5, 5))",
    "lib.cdist(lib.ones(2, 3, 4, 5), lib.ones(3, 2, 5, 5), p=1.0)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_same_as_torch(expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_diagonal_is_a_writable_view():
    for lib in (ag, torch):
        x = lib.zeros(3, 3)
        x.diagonal().fill_(1.0)
        x.diagonal(1).add_(2.0)
        assert x.sum().item() == 7.0
        assert x.diagonal()._version == x._version


def test_inplace_through_diagonal_reaches_base_gradient():
    grads = []
    for lib in (ag, torch):
        a = lib.arange(9.0).reshape(3, 3).requires_grad_()
        y = a * 1
        y.diagonal().mul_(3)
        y.sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_array_equal(*grads)


# (cdist is not here: torch has no second derivative for it; the harness checks agdebug's
# against central differences.)
@pytest.mark.parametrize("expr", ["lib.einsum('ij,jk->ik', x, y)", "lib.dist(x, y)",
                                  "lib.linalg.multi_dot([x, y, x])", "lib.kron(x, y)",
                                  "lib.diag(x).sum() * x", "x.trace() * x", "x.tril(1) * x"])
def test_second_derivatives_match_torch(expr):
    """``create_graph=True`` twice: the derivative of the derivative agrees with torch."""
    out = []
    rng = np.random.default_rng(0)
    x0, y0 = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    for lib in (ag, torch):
        x = lib.tensor(x0, requires_grad=True)
        y = lib.tensor(y0, requires_grad=True)
        z = eval(expr, {"lib": lib, "x": x, "y": y})
        gx, gy = lib.autograd.grad((z ** 2).sum(), [x, y], create_graph=True, allow_unused=True)
        terms = [(g ** 2).sum() for g in (gx, gy) if g is not None]
        second = lib.autograd.grad(sum(terms), [x], allow_unused=True)[0]
        out.append(None if second is None else second.detach().numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-9)


def test_einsum_graph_matches_torch_for_attention():
    """The node names of torch's einsum decomposition (bmm between permutes and views)."""
    def chain(t):
        names, fn = [], t.grad_fn
        while fn is not None and "Accumulate" not in fn.name():
            names.append(fn.name())
            fn = fn.next_functions[0][0]
        return names
    got = chain(ag.einsum("bhqd,bhkd->bhqk", ag.ones(1, 2, 3, 4, requires_grad=True),
                          ag.ones(1, 2, 5, 4)))
    want = chain(torch.einsum("bhqd,bhkd->bhqk", torch.ones(1, 2, 3, 4, requires_grad=True),
                              torch.ones(1, 2, 5, 4)))
    assert got == want == ["ViewBackward0", "PermuteBackward0", "ViewBackward0", "BmmBackward0",
                           "ViewBackward0", "PermuteBackward0", "PermuteBackward0",
                           "UnsqueezeBackward0"]


def test_linalg_is_a_module():
    import agdebug.linalg as linalg
    assert ag.linalg is linalg
    from agdebug.linalg import multi_dot, norm   # noqa: F401 - importable as torch's are

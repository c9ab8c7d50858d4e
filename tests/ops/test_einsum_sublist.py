"""torch.einsum's sublist form against torch: ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])``
(subscripts 0-51, Ellipsis, an optional output sublist) gives torch's values, gradients and
graph (the equation form's nodes), and torch's errors for bad subscripts; plus the argument
checks every form shares (too few arguments, the old one-list form, non-tensors).
"""

from __future__ import annotations

import pytest

import agdebug as ag

from ..torch_parity import assert_same_as_torch, assert_same_with_grads, evaluate, graph_names, leaf

SETUP = {"a": leaf(2, 3), "b": leaf(3, 4), "c": leaf(4, 2), "v": leaf(3),
         "s": leaf(2, 2), "t": leaf(2, 3, 4), "e": leaf(5, 2, 3)}

CALLS = [
    "lib.einsum(a, [0, 1], b, [1, 2], [0, 2])",             # matmul
    "lib.einsum(a, [0, 1], b, [1, 2])",                     # implicit output
    "lib.einsum(a, [0, 1], b, [1, 2], [2, 0])",             # transposed output
    "lib.einsum(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3])",  # three operands
    "lib.einsum(a, [0, 1], b, [1, 2], c, [2, 0], [])",      # a trace of a product
    "lib.einsum(a, [0, 1])",                                # one operand, identity
    "lib.einsum(a, [1, 0])",                                # implicit: sorted labels
    "lib.einsum(a, [0, 1], [1, 0])",                        # transpose
    "lib.einsum(a, [0, 1], [])",                            # sum
    "lib.einsum(s, [7, 7], [])",                            # trace
    "lib.einsum(s, [7, 7], [7])",                           # diagonal
    "lib.einsum(a, [0, 1], v, [1], [0])",                   # matrix-vector
    "lib.einsum(v, [5], v, [5])",                           # dot
    "lib.einsum(v, [5], v, [6], [5, 6])",                   # outer
    "lib.einsum(a, [25, 26], b, [26, 51], [25, 51])",       # the edges of both letter ranges
    "lib.einsum(a, [51, 0], b, [0, 26])",                   # implicit: A-Z before a-z
    "lib.einsum(t, [Ellipsis, 1], [Ellipsis])",             # ellipsis
    "lib.einsum(t, [..., 2], c, [2, 3], [..., 3])",
    "lib.einsum(e, [0, ...], a, [...], [0])",
    "lib.einsum(e, [...], [])",
    "lib.einsum(t, [0, ...], a, [0, 1], [..., 1])",
    "lib.einsum(t, [0, ...], a, [0, 1])",                   # implicit output with ellipsis
    "lib.einsum(a, (0, 1), b, range(1, 3), (2,))",          # any iterables of ints
    "lib.einsum(a, [True, False])",                         # bools are ints
    "lib.einsum(a.detach(), [0, 1], b, [1, 2], [0, 2])",
    "lib.einsum(a.detach(), [0, 1], b.detach(), [1, 2], [0, 2])",
    "lib.einsum(a.float(), [0, 1], b.float(), [1, 2])",
    "lib.einsum(a[:0], [0, 1], b, [1, 2], [0, 2])",         # empty
    "lib.einsum(a[:, :0], [0, 1], b[:0], [1, 2], [0, 2])",  # empty contraction
]


@pytest.mark.parametrize("expr", CALLS)
def test_sublist_matches_torch(torch, expr):
    assert evaluate(torch, expr, SETUP)[0] == "ok"
    assert_same_with_grads(torch, expr, SETUP)


@pytest.mark.parametrize("sublist,equation", [
    ("a, [0, 1], b, [1, 2], c, [2, 3], [0, 3]", "'AB,BC,CD->AD', a, b, c"),
    ("t, [..., 2], c, [2, 3], [..., 3]", "'...C,CD->...D', t, c"),
    ("s, [7, 7], []", "'HH->', s"),
])
def test_graph_is_the_equation_forms(torch, sublist, equation):
    """The same nodes as the equation it stands for, and as torch's graph."""
    names = {lib.__name__: graph_names(evaluate(lib, f"lib.einsum({sublist})", SETUP)[1])
             for lib in (ag, torch)}
    assert names["agdebug"] == names["torch"]
    assert names["agdebug"] == graph_names(evaluate(ag, f"lib.einsum({equation})", SETUP)[1])


def test_second_derivative(torch):
    expr = ("lib.autograd.grad((lib.autograd.grad(lib.einsum(a, [0, 1], b, [1, 2], [0, 2])"
            ".sin().sum(), a, create_graph=True)[0] ** 2).sum(), (a, b))")
    got, want = evaluate(ag, expr, SETUP)[1], evaluate(torch, expr, SETUP)[1]
    for g, w in zip(got, want):
        assert abs(g.detach().numpy() - w.detach().numpy()).max() < 1e-12


ERRORS = [
    "lib.einsum(a, [0, 52])",                        # out of range
    "lib.einsum(a, [0, -1])",
    "lib.einsum(a, [0, 1], [52])",                   # in the output sublist
    "lib.einsum(a, [0, 1.0])",                       # not an int
    "lib.einsum(a, [0, 'b'])",
    "lib.einsum(a, [0, None])",
    "lib.einsum(a, [0, 1], [1.5])",
    "lib.einsum(a, 5)",                              # not a list
    "lib.einsum(a, [0, 1], 5)",
    "lib.einsum(a, [0, 1], b)",                      # a tensor as the output sublist
    "lib.einsum(a, [0])",                            # too few subscripts
    "lib.einsum(a, [0, 1, 2])",                      # too many
    "lib.einsum(a, [0, 0])",                         # repeated, sizes differ
    "lib.einsum(a, [0, 1], b, [1, 2], [0, 3])",      # output subscript in no input
    "lib.einsum(a, [0, 1], b, [1, 2], [0, 0])",      # repeated in the output
    "lib.einsum(a, [0, 1], b, [0, 2])",              # sizes differ across operands
    "lib.einsum(a, [Ellipsis], [Ellipsis, Ellipsis])",
    "lib.einsum(a, [..., ...])",
    "lib.einsum(a, [0, 1], [0, 1], [0, 1])",         # a list where a tensor belongs
    # the checks every form shares
    "lib.einsum(a)",
    "lib.einsum('ij')",
    "lib.einsum('ij', [])",
    "lib.einsum()",
    "lib.einsum(1, a)",
    "lib.einsum(None, a)",
    "lib.einsum('ij', a, 1)",
    "lib.einsum('ij', 1)",
    "lib.einsum('ij,jk', [a, b, b])",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors(torch, expr):
    assert_same_as_torch(torch, expr, SETUP)


def test_old_list_form_still_works(torch):
    assert_same_with_grads(torch, "lib.einsum('ij,jk->ik', [a, b])", SETUP)
    assert_same_with_grads(torch, "lib.einsum('ij,jk->ik', (a, b))", SETUP)

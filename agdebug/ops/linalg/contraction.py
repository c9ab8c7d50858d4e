"""Contractions built from existing ops, step for step as torch builds them, so the graph
holds torch's nodes: einsum (permutes, views, bmm), tensordot and inner (mm or dot),
linalg.multi_dot and chain_matmul (mm in the cheapest order, then a view).
"""

from __future__ import annotations

from ...tensor import Tensor
from ...backend import cpp_name
from .products import bmm, dot, mm

# ----------------------------------------------------------------------------- einsum

_ELLIPSIS = "..."
# torch numbers labels A-Z then a-z: the implicit output and the contraction dims follow it.
_LABEL_ORDER = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")}


def _parse_operand(text: str, start: int, index: int) -> list:
    labels, i = [], 0
    while i < len(text):
        c = text[i]
        if c == ".":
            if _ELLIPSIS in labels:
                raise RuntimeError(f"einsum(): found '.' for operand {index} for which an "
                                   "ellipsis was already found")
            if text[i:i + 3] != _ELLIPSIS:
                raise RuntimeError(f"einsum(): found '.' for operand {index} that is not part "
                                   "of any ellipsis")
            labels.append(_ELLIPSIS)
            i += 3
            continue
        if c != " ":
            if c not in _LABEL_ORDER:
                raise RuntimeError(f"einsum(): invalid subscript given at index {start + i} in "
                                   "the equation string, subscripts must be in [a-zA-Z]")
            labels.append(c)
        i += 1
    return labels


def _parse_inputs(lhs: str, count: int) -> list:
    parts = lhs.split(",")
    if len(parts) > count:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(parts) < count:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    out, start = [], 0
    for index, part in enumerate(parts):
        out.append(_parse_operand(part, start, index))
        start += len(part) + 1
    return out


def _ellipsis_dims(op_labels: list, operands: tuple) -> tuple:
    """(label counts, the most dims any ellipsis covers), checking subscript counts."""
    counts, ell = {}, 0
    for i, (labels, op) in enumerate(zip(op_labels, operands)):
        named = [c for c in labels if c != _ELLIPSIS]
        has_ell = len(named) != len(labels)
        for c in named:
            counts[c] = counts.get(c, 0) + 1
        if has_ell:
            ell = max(ell, op.ndim - len(named))
        if (len(named) > op.ndim) if has_ell else (len(named) != op.ndim):
            how = ("is more than the number of dimensions" if has_ell
                   else "does not match the number of dimensions")
            tail = "" if has_ell else " and no ellipsis was given"
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(named)}) {how} ({op.ndim}) for operand {i}{tail}")
    return counts, ell


def _output_positions(equation: str, arrow: int, counts: dict, ell: int) -> tuple:
    """``(label -> position in the aligned shape, ellipsis start, out dims, total dims)``."""
    position, index, ell_index, ell_out = {}, 0, 0, False
    if arrow < 0:   # implicit output: the ellipsis, then the labels seen once, in order
        index, ell_out = ell, True
        for c in sorted(counts, key=_LABEL_ORDER.get):
            if counts[c] == 1:
                position[c], index = index, index + 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_out:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) "
                                       "was already found")
                if rhs[i:i + 3] != _ELLIPSIS:
                    raise RuntimeError("einsum(): found '.' for output that is not part of "
                                       "any ellipsis (...)")
                ell_index, index, ell_out = index, index + ell, True
                i += 3
                continue
            if c != " ":
                _check_output_label(c, counts, position, arrow + 2 + i)
                position[c], index = index, index + 1
            i += 1
    out_dims = index
    if not ell_out:
        ell_index, index = index, index + ell
    for c in sorted(counts, key=_LABEL_ORDER.get):
        if c not in position:
            position[c], index = index, index + 1
    return position, ell_index, out_dims, index


def _check_output_label(c: str, counts: dict, position: dict, at: int) -> None:
    if c not in _LABEL_ORDER:
        raise RuntimeError(f"einsum(): invalid subscript given at index {at} in the equation "
                           "string, subscripts must be in [a-zA-Z]")
    if c in position:
        raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the "
                           "output")
    if c not in counts:
        raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation "
                           "for any input operand")


def _align(op: Tensor, labels: list, layout: tuple, ell: int, sizes: dict, counts: list,
           index: int) -> Tensor:
    """One operand with a dim per aligned position: diagonals taken for repeated labels,
    size-1 dims for missing ones, then permuted (torch's einsum, step 2)."""
    position, ell_index, _, total = layout
    perm = [-1] * total
    dim = 0
    covered = op.ndim - (len(labels) - 1)   # the dims the ellipsis stands for
    for c in labels:
        if c == _ELLIPSIS:
            for j in range(ell - covered, ell):
                _count(op, dim, ("...", j), sizes, counts, ell_index + j, index)
                perm[ell_index + j], dim = dim, dim + 1
        elif perm[position[c]] == -1:
            _count(op, dim, c, sizes, counts, position[c], index)
            perm[position[c]], dim = dim, dim + 1
        else:   # a repeated label: its diagonal, moved to where the label first was
            prev = perm[position[c]]
            if op.shape[dim] != op.shape[prev]:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {index} "
                                   f"but the sizes don't match, {op.shape[dim]} != "
                                   f"{op.shape[prev]}")
            op = op.diagonal(0, prev, dim).movedim(-1, prev)
    for k, value in enumerate(perm):
        if value == -1:
            op = op.unsqueeze(dim)
            perm[k], dim = dim, dim + 1
    return op.permute(perm)


def _count(op, dim, key, sizes: dict, counts: list, slot: int, index: int) -> None:
    """Check that a label's size broadcasts; count the operands where it is not 1."""
    size = op.shape[dim]
    if size == 1:
        return
    seen = sizes.get(key, 1)
    if seen not in (1, size):
        if key[0] == "...":
            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand "
                               f"{index}has size {size} which does not broadcast with "
                               f"previously seen ellipsis with size {seen} for the respective "
                               "dimension")
        raise RuntimeError(f"einsum(): subscript {key} has size {size} for operand {index} "
                           f"which does not broadcast with previously seen size {seen}")
    sizes[key] = size
    counts[slot] += 1


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """``(left * right).sum(sum_dims, keepdim=True)`` as a bmm between permutes and views."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    sizes = {"lro": 1, "lo": 1, "ro": 1, "sum": 1}
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sizes["sum"] *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            lro.append(i)
            sizes["lro"] *= left.shape[i]
        elif sl:
            lo.append(i)
            sizes["lo"] *= left.shape[i]
        else:
            ro.append(i)
            sizes["ro"] *= right.shape[i]
    out_size = ([left.shape[d] for d in lro + lo] + [1] * len(sum_dims)
                + [right.shape[d] for d in ro])
    order = lro + lo + list(sum_dims) + ro
    opermutation = [order.index(d) for d in range(len(order))]
    left = left.permute(lro + lo + list(sum_dims) + ro).reshape(
        sizes["lro"], sizes["lo"], sizes["sum"])
    right = right.permute(lro + list(sum_dims) + ro + lo).reshape(
        sizes["lro"], sizes["sum"], sizes["ro"])
    return bmm(left, right).view(out_size).permute(opermutation)


def _contract(a: Tensor, b: Tensor, layout: tuple, counts: list) -> Tensor:
    """Multiply two aligned operands, summing the dims no later operand has."""
    _, _, out_dims, total = layout
    sum_dims, a_sum, b_sum = [], [], []
    for dim in range(out_dims, total):
        if a.shape[dim] != 1 and b.shape[dim] != 1:
            counts[dim] -= 1
            if counts[dim] == 1:
                sum_dims.append(dim)
                counts[dim] = 0
        elif counts[dim] == 1:
            if a.shape[dim] != 1:
                a_sum.append(dim)
                counts[dim] = 0
            elif b.shape[dim] != 1:
                b_sum.append(dim)
                counts[dim] = 0
    if a_sum:
        a = a.sum(a_sum, True)
    if b_sum:
        b = b.sum(b_sum, True)
    return _sumproduct_pair(a, b, sum_dims)


def einsum(*args):
    """Einstein summation, computed as torch computes it (left to right, through bmm), so
    the graph has torch's nodes. The arguments are an equation and its operands, or the
    sublist form: operands each followed by its list of subscripts (ints in [0, 52) or
    ``...``), then optionally the output's list.

    >>> import agdebug as ag
    >>> a = ag.ones(2, 3, requires_grad=True)
    >>> ag.einsum("ij,jk->ik", a, ag.ones(3, 4)).grad_fn.name()
    'ViewBackward0'
    >>> ag.einsum(a, [0, 1], ag.ones(3, 4), [1, 2], [0, 2]).shape
    torch.Size([2, 4])
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])   # the old form: the operands in one list
    _check_einsum_args(equation, operands)
    return _einsum(equation, operands)


def _sublist_subscript(n) -> str:
    """One sublist subscript as an equation letter: 0-25 are A-Z, 26-51 a-z (torch's
    ``parse_subscript``, whose comparisons and ``chr`` raise for other types as here)."""
    if n == Ellipsis:
        return _ELLIPSIS
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _sublist_equation(args: tuple) -> tuple:
    """(equation, operands) of ``op0, sublist0, op1, sublist1, ..., [output sublist]``."""
    equation = ",".join("".join(_sublist_subscript(s) for s in sub) for sub in args[1::2])
    if len(args) % 2 == 1:   # an odd count: the last argument is the output's sublist
        equation += "->" + "".join(_sublist_subscript(s) for s in args[-1])
        return equation, args[:-1:2]
    return equation, args[::2]


def _check_einsum_args(equation, operands: tuple) -> None:
    if not isinstance(equation, str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{type(op).__name__}")


def _einsum(equation: str, operands: tuple) -> Tensor:
    arrow = equation.find("->")
    op_labels = _parse_inputs(equation if arrow < 0 else equation[:arrow], len(operands))
    label_counts, ell = _ellipsis_dims(op_labels, operands)
    layout = _output_positions(equation, arrow, label_counts, ell)
    counts, sizes = [0] * layout[3], {}
    ops = [_align(op, labels, layout, ell, sizes, counts, i)
           for i, (op, labels) in enumerate(zip(operands, op_labels))]
    while len(ops) > 1:
        ops.insert(0, _contract(ops.pop(0), ops.pop(0), layout, counts))
    result, out_dims, total = ops[0], layout[2], layout[3]
    if total > out_dims:   # contraction dims: summed already (size 1) or, alone, summed now
        if len(operands) > 1:
            return result.view(list(result.shape[:out_dims]))
        return result.sum(list(range(out_dims, total)))
    return result


# ----------------------------------------------------------------------------- tensordot, inner

def _dims_lists(a: Tensor, b: Tensor, dims) -> tuple:
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got "
                               f"dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    first, second = dims
    first = [first] if isinstance(first, int) else list(first)
    second = [second] if isinstance(second, int) else list(second)
    return ([d % a.ndim if a.ndim else d for d in first],
            [d % b.ndim if b.ndim else d for d in second])


def tensordot(a, b, dims=2, out=None):
    """Contract ``a``'s ``dims[0]`` with ``b``'s ``dims[1]`` (or ``a``'s last ``dims`` with
    ``b``'s first): a permute and reshape of each, then mm (dot when nothing is left).

    >>> import agdebug as ag
    >>> ag.tensordot(ag.ones(2, 3), ag.ones(3, 4), dims=1).shape
    torch.Size([2, 4])
    """
    dims1, dims2 = _dims_lists(a, b, dims)
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, csize = a, b, 1
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:   # broadcast dims are summed right away
            t1 = t1.sum(d1, True)
        elif s1 == 1:
            t2 = t2.sum(d2, True)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size "
                                   f"{s1} in dim {d1} and second has size {s2} in dim {d2}")
            csize *= s1
    keep1 = [i for i in range(a.ndim) if i not in dims1]
    keep2 = [i for i in range(b.ndim) if i not in dims2]
    rsizes = [t1.shape[i] for i in keep1] + [t2.shape[i] for i in keep2]
    size1, size2 = _prod(t1.shape[i] for i in keep1), _prod(t2.shape[i] for i in keep2)
    t1, t2 = t1.permute(keep1 + dims1), t2.permute(dims2 + keep2)
    if size1 != 1 or size2 != 1:
        return mm(t1.reshape(size1, csize), t2.reshape(csize, size2)).reshape(rsizes)
    if t1.is_contiguous() and t2.is_contiguous():   # full contraction: dot of the flat views
        return dot(t1.flatten(), t2.flatten()).reshape(rsizes)
    return (t1.squeeze() * t2.squeeze()).sum().reshape(rsizes)


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def inner(input, other):
    """The inner product over the last dims (a product where one is a scalar).

    >>> import agdebug as ag
    >>> ag.inner(ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
    tensor(11.)
    """
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


# ----------------------------------------------------------------------------- multi_dot

def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices (the first and last may be vectors), multiplied
    in the order that costs fewest multiplications.

    >>> import agdebug as ag
    >>> ag.linalg.multi_dot([ag.ones(2, 3), ag.ones(3, 4), ag.ones(4)]).shape
    torch.Size([2])
    """
    return _multi_dot(list(tensors), "multi_dot")


def chain_matmul(*matrices, out=None):
    """The product of a chain of 2-D tensors (deprecated in torch for ``linalg.multi_dot``)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return _multi_dot(list(matrices), "multi_dot")


def _multi_dot(tensors: list, fn: str) -> Tensor:
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"{fn}(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"{fn}(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"{fn}(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"{fn}(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    _check_chain(tensors, fn)
    shape = ([first.shape[0]] if first.ndim == 2 else []) + \
        ([last.shape[1]] if last.ndim == 2 else [])
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(-1)
    return _chain(mats).view(shape)


def _check_chain(tensors: list, fn: str) -> None:
    dtype = tensors[0]._data.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != dtype:
            raise RuntimeError(f"{fn}(): all tensors must have be the same dtype but tensor 0 "
                               f"is {cpp_name(dtype)} and tensor {i} "
                               f"{cpp_name(t._data.dtype)}")
    cols = [t.shape[-1] for t in tensors]
    rows = [t.shape[0] for t in tensors]
    for i in range(len(tensors) - 1):
        a, b = tensors[i], tensors[i + 1]
        if cols[i] != rows[i + 1]:
            sa = list(a.shape) if a.ndim == 2 or i else [1, a.shape[0]]
            sb = list(b.shape) if b.ndim == 2 or i + 1 < len(tensors) - 1 else [b.shape[0], 1]
            raise RuntimeError(f"{fn}(): tensors {i} and {i + 1} with shapes {sa} and {sb} "
                               "cannot be multiplied")


def _chain(mats: list) -> Tensor:
    if len(mats) == 2:
        return mm(mats[0], mats[1])
    if len(mats) == 3:   # torch compares the two orders directly
        a, b, c, d = mats[0].shape[0], mats[1].shape[0], mats[2].shape[0], mats[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            return mm(mats[0], mm(mats[1], mats[2]))
        return mm(mm(mats[0], mats[1]), mats[2])
    return _multiply(mats, _chain_order(mats), 0, len(mats) - 1)


def _chain_order(mats: list) -> list:
    """The classic matrix-chain dynamic programme: ``split[i][j]`` of the cheapest order."""
    n = len(mats)
    p = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _multiply(mats: list, split: list, i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_multiply(mats, split, i, k), _multiply(mats, split, k + 1, j))


FUNCTIONS = {"einsum": einsum, "tensordot": tensordot, "inner": inner,
             "chain_matmul": chain_matmul}
METHODS = {"inner": inner}

"""Which of several tied elements torch's CPU kernels return, as plain Python.

Where values tie, the index that ``sort`` (unstable), ``topk``, ``mode``, ``kthvalue`` and
``nanmedian`` report (and so the element the gradient reaches) is whatever the algorithm
leaves in place: libstdc++'s ``std::sort`` (introsort), ``std::nth_element`` (introselect)
and ``std::partial_sort`` (heap select), or TH's quickselect (Sedgewick's). These ports
replay the same swaps on a list of indices, so the same tie wins. They run per slice in
Python, so callers use them only for the slices where a tie decides the answer.
"""

from __future__ import annotations

import numpy as np

_THRESHOLD = 16   # libstdc++'s _S_threshold: below it, introsort leaves insertion sort


def _move_median_to_first(a, result, x, y, z, less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            a[result], a[y] = a[y], a[result]
        elif less(a[x], a[z]):
            a[result], a[z] = a[z], a[result]
        else:
            a[result], a[x] = a[x], a[result]
    elif less(a[x], a[z]):
        a[result], a[x] = a[x], a[result]
    elif less(a[y], a[z]):
        a[result], a[z] = a[z], a[result]
    else:
        a[result], a[y] = a[y], a[result]


def _partition_pivot(a, first: int, last: int, less) -> int:
    """``std::__unguarded_partition_pivot``: median of three to ``first``, then Hoare."""
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    pivot, lo, hi = a[first], first + 1, last
    while True:
        while less(a[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _insertion_sort(a, first: int, last: int, less) -> None:
    for i in range(first + 1, last):
        value = a[i]
        if less(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, less)


def _linear_insert(a, i: int, less) -> None:
    value = a[i]
    j = i - 1
    # C++ has no ``j >= 0``: a strict weak order never needs it (NaN under ``<`` might, and
    # reads out of bounds there); here it keeps a[-1] from wrapping round.
    while j >= 0 and less(value, a[j]):
        a[j + 1] = a[j]
        j -= 1
    a[j + 1] = value


def _adjust_heap(a, first: int, hole: int, length: int, value, less) -> None:
    """``std::__adjust_heap``: sift the hole at ``hole`` down to a leaf, then push ``value``."""
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole, parent = parent, (parent - 1) // 2
    a[first + hole] = value


def _heap_select(a, first: int, middle: int, last: int, less) -> None:
    """``std::__heap_select``: the heap of [first, middle) ends up holding the smallest."""
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(a, first, parent, length, a[first + parent], less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            value, a[i] = a[i], a[first]
            _adjust_heap(a, first, 0, length, value, less)


def partial_sort(a: list, middle: int, less) -> list:
    """``std::partial_sort(a.begin(), a.begin() + middle, a.end(), less)`` (in place)."""
    _partial_sort(a, 0, middle, len(a), less)
    return a


def _partial_sort(a, first: int, middle: int, last: int, less) -> None:
    _heap_select(a, first, middle, last, less)
    for end in range(middle - 1, first, -1):   # std::__sort_heap: pop the top to the end
        value, a[end] = a[end], a[first]
        _adjust_heap(a, first, 0, end - first, value, less)


def _introsort_loop(a, first: int, last: int, depth: int, less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _partial_sort(a, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _lg(n: int) -> int:
    return n.bit_length() - 1


def std_sort(a: list, less) -> list:
    """``std::sort(a.begin(), a.end(), less)`` as libstdc++ does it (in place, returned)."""
    n = len(a)
    if n < 2:
        return a
    _introsort_loop(a, 0, n, 2 * _lg(n), less)
    if n > _THRESHOLD:
        _insertion_sort(a, 0, _THRESHOLD, less)
        for i in range(_THRESHOLD, n):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, 0, n, less)
    return a


def nth_element(a: list, nth: int, less) -> list:
    """``std::nth_element`` as libstdc++ does it (introselect; in place, returned)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return a
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return a
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)
    return a


def quick_select(values: list, k: int) -> int:
    """TH's ``quick_select_template`` (kthvalue's CPU kernel): the index it leaves at ``k``.

    NaN counts as larger than everything, as in torch.
    """
    arr = list(values)
    idx = list(range(len(arr)))

    def gt(x, y) -> bool:
        return (x != x and y == y) or x > y

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return idx[k]
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            return idx[k]
        swap((lo + hi) >> 1, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while gt(pivot, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def sort_indices(keys: list) -> list:
    """The order ``std::sort`` leaves ``range(len(keys))`` in, sorted by ``keys`` with ``<``
    (torch's unstable CPU sort, its comparator reduced to ranks)."""
    return std_sort(list(range(len(keys))), lambda i, j: keys[i] < keys[j])


def topk_indices(keys: list, k: int, sort: bool) -> list:
    """The ``k`` indices torch's CPU topk returns for ``keys``, best (smallest) first.

    As ``topk_impl_loop``: a partial sort where ``k * 64 <= n``, else nth_element, then
    (``sorted=True``) a sort of the ``k - 1`` ahead of the k-th.
    """
    order, less = list(range(len(keys))), lambda i, j: keys[i] < keys[j]
    if k == 0:
        return []
    if k * 64 <= len(keys):
        return partial_sort(order, k, less)[:k]
    nth_element(order, k - 1, less)
    head = std_sort(order[:k - 1], less) if sort else order[:k - 1]
    return head + [order[k - 1]]


def pooled_max(xp, windows, axis: int):
    """Where torch's CPU max pooling finds each window's maximum along ``axis``: its loop
    takes a value when ``val > max || isnan(val)``, so the first of tied maxima, but the
    last NaN (argmax alone gives the first NaN)."""
    best = xp.argmax(windows, axis=axis)
    if windows.dtype.kind != "f":
        return best
    # On the CPU, argmax picks a NaN exactly where a window has one: test those few values
    # first (on a GPU that test would cost a device sync).
    if xp is np and not np.isnan(np.take_along_axis(windows, np.expand_dims(best, axis),
                                                    axis=axis)).any():
        return best
    nan = xp.isnan(windows)
    last = windows.shape[axis] - 1 - xp.argmax(xp.flip(nan, axis=axis), axis=axis)
    return xp.where(nan.any(axis=axis), last, best)

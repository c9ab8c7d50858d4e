"""Where an array's elements live: its first address, the array owning its memory
(torch's storage), and every element's offset."""

from __future__ import annotations

import numpy as np


def data_pointer(array) -> int:
    """The address of an array's first element (a device pointer for a CuPy array)."""
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr   # CuPy


def storage_root(array):
    """The array that owns ``array``'s memory (torch: its storage): the last array of
    ``array``'s kind down its chain of ``.base`` references, which may pass through other
    objects (the ``DummyArray`` NumPy's ``as_strided`` puts between a view and its base).
    CuPy's ``as_strided`` keeps no base: on a GPU such a view is its own storage here."""
    root, link = array, array.base
    while link is not None:
        if isinstance(link, type(array)):
            root = link
        link = getattr(link, "base", None)
    return root


def element_offsets(shape, strides, start: int) -> np.ndarray:
    """The memory offset of every element of a strided array, row-major, flattened: its
    ``strides`` and ``start`` in elements."""
    offsets = np.array([start], dtype=np.int64)
    for n, s in zip(shape, strides):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64) * s).reshape(-1)
    return offsets

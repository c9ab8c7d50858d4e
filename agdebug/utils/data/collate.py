"""How a DataLoader turns a list of samples into a batch (``default_collate``), and a single
sample into tensors when it does not batch (``default_convert``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ... import creation, functions
from ...backend import float64
from ...tensor import Tensor

_FOUND = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists;"
          " found {}")


def default_collate(batch):
    """Stack tensors, arrays and numbers along a new first dimension; collate dicts by key
    and sequences position by position; leave strings as a list."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return functions.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSU":
            raise TypeError(_FOUND.format(elem.dtype))
        return default_collate([creation.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number)):
        return creation.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return _same_type(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # a namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [default_collate(samples) for samples in zip(*batch)]
        return collated if isinstance(elem, tuple) else _same_type(elem, collated)
    raise TypeError(_FOUND.format(type(elem)))


def default_convert(data):
    """One sample's arrays as tensors (tuples become lists, as torch's do)."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "OSU" else creation.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return creation.as_tensor(data)
    if isinstance(data, Mapping):
        return _same_type(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _same_type(data, [default_convert(d) for d in data])
    return data


def _same_type(like, collated):
    """``collated`` in ``like``'s container type where it can be built from it."""
    try:
        return type(like)(collated)
    except TypeError:   # a container that cannot be made from one argument
        return collated

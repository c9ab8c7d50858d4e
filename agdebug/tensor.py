"""Tensor: an array plus what autograd needs to know about it.

Operator and method bindings (``+``, ``.exp()``, ``.sum()``...) are added by
``agdebug.ops`` from the one op registry; this module holds the state and the
autograd attributes (``grad``, ``grad_fn``, ``requires_grad``, hooks...).
"""

from __future__ import annotations

import copy
import warnings
import weakref

import numpy as np

from . import backend, gaps
from .backend import get_dtype
from .events import WATCH, probe
from .graph.grad_mode import MODE
from .graph.hooks import add_hook
from .graph.node import AccumulateGrad

__all__ = ["Tensor", "Size", "VersionCounter"]

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


class Size(tuple):
    """A shape, printed as torch prints it: ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class VersionCounter:
    """Bumped by every in-place change; shared by a tensor and its views."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    >>> import agdebug as ag
    >>> x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 4., 6.])
    """
    # The math methods are bound by agdebug.ops and ``backward`` by agdebug.autograd: the
    # layers above the Tensor add its methods, so that it never imports them.

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_output_nr", "_vc",
                 "_base", "_acc", "_backward_hooks", "_post_acc_hooks", "_retains_grad",
                 "_id", "_inference", "_made_in", "__weakref__")

    __array_priority__ = 1000  # numpy defers `ndarray * tensor` to Tensor.__rmul__

    def __new__(cls, *args, device=None):
        # torch's legacy constructor: sizes, data or a tensor to alias (agdebug/legacy.py)
        from .legacy import new   # (that module builds on this one)
        return new(None, args, device)

    # -- construction (internal) ------------------------------------------------------------

    @classmethod
    def _wrap(cls, array, grad_fn=None, output_nr: int = 0, version=None) -> Tensor:
        """A tensor around ``array`` (no copy); ``grad_fn`` makes it a non-leaf."""
        # Every tensor is made here (the constructors too): this runs for every op's result.
        t = object.__new__(cls)
        t._data = array
        t._requires_grad = grad_fn is not None
        t._grad = None
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = version
        t._base = None
        t._acc = None
        t._backward_hooks = None
        t._post_acc_hooks = None
        t._retains_grad = False
        t._id = 0
        t._inference = False
        t._made_in = None   # a view made in no_grad/inference mode: see ops.core.running
        return t

    @classmethod
    def _saved_output(cls, array, node, output_nr: int, version) -> Tensor:
        """Rebuild a saved forward output whose tensor object has died."""
        return cls._wrap(array, node, output_nr, version)

    # -- basic attributes ---------------------------------------------------------------------

    @property
    def data(self) -> Tensor:
        """The same storage, detached, with its own version counter (torch's ``.data``)."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> backend.dtype:
        return get_dtype(self._data.dtype)

    @property
    def device(self) -> backend.Device:
        return backend.device_of_array(self._data)

    def get_device(self) -> int:
        """The GPU's index, or -1 for a CPU tensor (torch's convention)."""
        device = self.device
        return -1 if device.type == "cpu" else device.index

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def element_size(self) -> int:
        return self._data.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        return self._data.dtype.itemsize

    def type(self, dtype=None):
        """``'torch.FloatTensor'``, or a copy cast to ``dtype`` when one is given."""
        if dtype is None:
            prefix = "torch.cuda." if self.device.type == "cuda" else "torch."
            return f"{prefix}{self.dtype._legacy}Tensor"
        if isinstance(dtype, str):   # 'torch.LongTensor'
            from . import legacy
            dtype = getattr(legacy, dtype.rpartition(".")[2])
        return self.to(getattr(dtype, "dtype", dtype))

    def is_inference(self) -> bool:
        return self._inference

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None):
        strides = tuple(s // self._data.dtype.itemsize for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    @property
    def _version(self) -> int:
        """How many in-place changes this storage has seen (shared with views)."""
        return self._vc.value if self._vc is not None else 0

    def _version_counter(self) -> VersionCounter:
        """The counter shared with views, made on first need: most tensors never need one,
        and not making it spares Python's cyclic GC one object per op."""
        vc = self._vc
        if vc is None:
            vc = self._vc = VersionCounter()
        return vc

    def _bump_version(self) -> None:
        """Record an in-place change of the storage."""
        self._version_counter().value += 1

    # -- autograd attributes ------------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        # torch: a view requires grad when its base does, also one made in no_grad mode. Such
        # a view is a leaf without an accumulator (``_requires_grad``, torch's own flag, stays
        # off): ops on it are recorded, and its gradient stops there.
        return self._requires_grad or (self._base is not None and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._set_requires_grad(value, "only Tensors of floating point and complex dtype can "
                                       "require gradients")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` on a leaf in place; returns ``self``."""
        if requires_grad and self._grad_fn is not None:
            return self   # torch allows this no-op through the method (not the setter)
        self._set_requires_grad(requires_grad,
                                "only Tensors of floating point dtype can require gradients")
        return self

    def _set_requires_grad(self, value: bool, dtype_message: str) -> None:
        # torch words the same mistake differently through the setter and the method.
        if self._grad_fn is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if value and self._data.dtype.kind not in "fc":
            raise RuntimeError(dtype_message)
        if value and self._inference and not MODE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(value)
        if value and WATCH.on:   # a new leaf: the probe names it after the user's line
            probe.leaf_made(self)

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            _check_grad_assignment(self, value)
        if WATCH.on:
            probe.grad_set(self, value)
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        if WATCH.on:
            probe.grad_set(self, None)
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Populate ``.grad`` of this non-leaf tensor during backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self._grad_fn._hook_table().retains_grad[self._output_nr] = weakref.ref(self)

    def _set_history(self, node, output_nr: int) -> None:
        """Make ``node`` this tensor's grad_fn (an in-place op rebases it there). Its
        ``retain_grad`` moves along, as torch moves the retains_grad hook."""
        old = self._grad_fn
        if self._retains_grad and old is not None and old._hooks is not None:
            ref = old._hooks.retains_grad.get(self._output_nr)
            if ref is not None and ref() is self:
                del old._hooks.retains_grad[self._output_nr]
                node._hook_table().retains_grad[output_nr] = ref
        self._grad_fn, self._output_nr, self._requires_grad = node, output_nr, True

    def _gradient_edge(self) -> tuple:
        """``(node, input_nr)`` that this tensor's gradient flows into: its ``grad_fn``,
        or its accumulator for a leaf; ``(None, 0)`` when it gets no gradient.

        ``ops.core.running._edges`` inlines this, and the accumulator lookup of
        ``_grad_accumulator`` (a tensor with a ``grad_fn`` always requires grad): change
        them together."""
        if not self._requires_grad:
            return (None, 0)
        if self._grad_fn is None:
            return (self._grad_accumulator(), 0)
        return (self._grad_fn, self._output_nr)

    def _grad_accumulator(self) -> AccumulateGrad | None:
        """The leaf's accumulator, made on demand and held by the graph, not by the leaf."""
        if self._grad_fn is not None or not self._requires_grad:
            return None
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; may return a new one.

        >>> import agdebug as ag
        >>> x = ag.ones(2, requires_grad=True)
        >>> _ = x.register_hook(lambda g: g * 10)
        >>> (x * 1).sum().backward()
        >>> x.grad
        tensor([10., 10.])
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is None:
            if self._backward_hooks is None:
                self._backward_hooks = {}
            return add_hook(self._backward_hooks, hook)
        table = self._grad_fn._hook_table().tensor_pre
        return add_hook(table.setdefault(self._output_nr, {}), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` has been updated."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        return add_hook(self._post_acc_hooks, hook)

    def detach(self) -> Tensor:
        """A tensor sharing storage and version counter, outside the graph. Not a view
        (torch: ``_base`` is None), so an in-place op on it leaves this tensor's history."""
        t = Tensor._wrap(self._data, None, 0, self._version_counter())
        t._inference = self._inference
        return t

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are "
                               "using DistributedDataParallel (DDP) for training, and "
                               "gradient_as_bucket_view is set as True, gradients are views "
                               "of DDP buckets, and hence detach_() cannot be called on these "
                               "gradients. To fix this error, please refer to the "
                               "Optimizer.zero_grad() function in torch/optim/optimizer.py "
                               "as the solution.")
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    # -- conversion -----------------------------------------------------------------------------

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return backend.move_array(self._data, backend.CPU).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self.device.type != "cpu":
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use "
                    "Tensor.cpu() to copy the tensor to host memory first.")
            return backend.move_array(self._data, backend.CPU)
        return self._data

    def __getattr__(self, name: str):
        # Only for names the class lacks: a method torch's Tensor has says so (``gaps``).
        raise gaps.missing("Tensor", f"'{type(self).__name__}' object", name)

    def __array__(self, dtype=None, copy=None):
        array = backend.move_array(self._data, backend.CPU)
        return array if dtype is None else array.astype(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def _scalar(self):
        """``item()`` for Python's conversions, refused in their words (not ``item``'s)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, format_spec: str) -> str:
        # As torch: a 0-d tensor formats as its number (f"{loss:.4f}"), others as their repr.
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __repr__(self) -> str:
        from .printing import tensor_repr
        return tensor_repr(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (backend.move_array(self._data, backend.CPU), self._requires_grad))

    def __deepcopy__(self, memo):
        """torch's: a leaf's copy on the same device, with ``requires_grad`` and a deep copy
        of ``.grad``; a tensor with history refuses, in torch's words."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        copied = memo[id(self)] = Tensor._wrap(self._data.copy())
        copied._requires_grad = self._requires_grad
        if self._grad is not None:
            copied._grad = copy.deepcopy(self._grad, memo)
        return copied


def _rebuild(array, requires_grad):
    return Tensor._wrap(array).requires_grad_(requires_grad)


def _wrap_dim(dim: int, ndim: int) -> int:
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {dim})")
    return dim % max(ndim, 1)


def _check_grad_assignment(t: Tensor, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                        f"{type(value).__name__}")
    if value is t:
        raise RuntimeError("can't assign Variable as its own grad")
    if value._data.dtype != t._data.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype "
            f"'{backend.cpp_name(value._data.dtype)}' to a "
            f"tensor with grad_dtype '{t.dtype._legacy}'. The gradient must match the tensor's "
            "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
            "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with "
            "caution. Diverging the dtypes of a tensor and its gradient may break downstream "
            "systems that assume they match.")
    if value.device != t.device:
        raise RuntimeError("assigned grad has data located on a different device")
    if value._data.shape != t._data.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of "
            f"size '{list(t._data.shape)}'. Please ensure that the gradient and the tensor are "
            "the same size")

"""The CUDA side: device=, moves, device errors, gradients on their tensor's device.

Everything here runs on CuPy's test double (``fake_cuda``, tests/fake_cupy.py), so the
routing is checked on machines without a GPU; ``test_on_the_device_fixture`` runs on a
real GPU where one is present (the ``device`` fixture).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import agdebug as ag
from agdebug import backend
from agdebug.ops import OPS

from .ops.harness import all_cases, float_indices

CUDA0 = ag.device("cuda:0")


def _on_fake(t, index: int = 0) -> bool:
    from .fake_cupy import ndarray
    return type(t._data) is ndarray and t._data.device.id == index


# ----------------------------------------------------------------------------- import, cuda.*

def test_import_agdebug_never_imports_cupy():
    code = "import agdebug, sys; assert 'cupy' not in sys.modules, 'cupy was imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture
def no_cupy(monkeypatch):
    """A machine where ``import cupy`` fails."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setattr(backend, "_cupy", None)


def test_cuda_functions_without_cupy(no_cupy):
    assert ag.cuda.is_available() is False
    assert ag.cuda.device_count() == 0
    ag.cuda.synchronize()   # nothing to wait for: a no-op, as in torch without CUDA
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver on your system"):
        ag.cuda.current_device()


def test_cuda_tensor_without_cupy_says_how_to_install(no_cupy):
    with pytest.raises(RuntimeError, match=r"pip install agdebug\[gpu\]"):
        ag.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match=r"pip install agdebug\[gpu\]"):
        ag.ones(2).cuda()


def test_cuda_functions_with_cupy(fake_cuda):
    assert ag.cuda.is_available() is True
    assert ag.cuda.device_count() == 2
    assert ag.cuda.current_device() == 0
    assert ag.cuda.get_device_name("cuda:1") == "Fake CUDA Device"
    ag.cuda.synchronize()
    assert fake_cuda.state.syncs == 1


# ----------------------------------------------------------------------------- creation

CREATORS = {
    "tensor": lambda **kw: ag.tensor([1.0, 2.0], **kw),
    "as_tensor": lambda **kw: ag.as_tensor(np.ones(2), **kw),
    "zeros": lambda **kw: ag.zeros(2, 3, **kw),
    "ones": lambda **kw: ag.ones((2, 3), **kw),
    "empty": lambda **kw: ag.empty(2, **kw),
    "full": lambda **kw: ag.full((2,), 7.0, **kw),
    "arange": lambda **kw: ag.arange(4, **kw),
    "linspace": lambda **kw: ag.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: ag.eye(3, **kw),
    "rand": lambda **kw: ag.rand(2, **kw),
    "randn": lambda **kw: ag.randn(2, **kw),
    "randint": lambda **kw: ag.randint(0, 5, (3,), **kw),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
@pytest.mark.parametrize("spec", ["cuda", "cuda:1", CUDA0, 1])
def test_creation_functions_take_device(fake_cuda, name, spec):
    t = CREATORS[name](device=spec)
    want = backend.as_device(spec)
    assert t.device is want and t.is_cuda
    assert t.get_device() == want.index and CREATORS[name]().get_device() == -1
    assert _on_fake(t, want.index)
    on_cpu = CREATORS[name]()
    assert t.dtype == on_cpu.dtype and t.shape == on_cpu.shape


@pytest.mark.parametrize("like", ["zeros_like", "ones_like", "empty_like", "rand_like",
                                  "randn_like"])
def test_like_functions_keep_the_device(fake_cuda, like):
    x = ag.ones(2, 3, device="cuda:1")
    assert getattr(ag, like)(x).device == "cuda:1"
    assert getattr(ag, like)(x, device="cpu").device == "cpu"


def test_device_objects_and_repr(fake_cuda):
    assert repr(CUDA0) == "device(type='cuda', index=0)" and str(CUDA0) == "cuda:0"
    assert ag.device("cuda", 1) is ag.device("cuda:1")
    x = ag.tensor([1.0, 2.0], device="cuda")
    assert repr(x) == "tensor([1., 2.], device='cuda:0')"
    x.requires_grad_()
    assert repr(x) == "tensor([1., 2.], device='cuda:0', requires_grad=True)"
    # torch wraps a suffix that would pass its linewidth (80) onto a new line
    assert repr(x.double()) == ("tensor([1., 2.], device='cuda:0', dtype=torch.float64,\n"
                                "       grad_fn=<ToCopyBackward0>)")


def test_host_conversions(fake_cuda):
    x = ag.tensor([1.5, 2.5], device="cuda")
    assert x.sum().item() == 4.0 and x.tolist() == [1.5, 2.5]
    np.testing.assert_array_equal(np.asarray(x), [1.5, 2.5])
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy. "
                                        "Use Tensor.cpu"):
        x.numpy()


# ----------------------------------------------------------------------------- moving

def test_to_cuda_cpu_and_back(fake_cuda):
    x = ag.tensor([1.0, 2.0])
    for moved in (x.to("cuda"), x.cuda(), x.to(CUDA0), x.to(device="cuda:0"), x.cuda(0)):
        assert moved.device is CUDA0 and _on_fake(moved)
    y = x.cuda()
    assert y.to("cuda") is y and y.cuda() is y
    back = y.cpu()
    assert back.device == "cpu" and type(back._data) is np.ndarray
    np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])
    assert x.cpu() is x


def test_to_its_own_device_is_itself_as_the_general_path_gives_it(fake_cuda):
    # ``t.to(t.device)`` returns early (a training loop's batches, clip_grad_norm_): the
    # tensor itself, as ``to`` gives it; another device, or any other argument, still moves
    from agdebug.ops.tensor_methods.conversion import to
    for x in (ag.tensor([1.0, 2.0], requires_grad=True), ag.tensor([1, 2]).cuda()):
        assert x.to(x.device) is x is to(x, x.device)
        assert x.to(x.device, copy=True) is not x and x.to(x.device, ag.float64) is not x
    x = ag.tensor([1.0])
    assert x.to(CUDA0).device is CUDA0 and x.cuda().to(x.device).device == "cpu"


def test_to_device_and_dtype_is_one_copy(fake_cuda):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.to("cuda", ag.float64)
    assert y.device is CUDA0 and y.dtype is ag.float64
    assert y.grad_fn.name() == "ToCopyBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    z = y.to(x)
    assert z.device == "cpu" and z.dtype is ag.float32
    assert x.to("cuda", ag.float32, False, True).device is CUDA0


def test_between_gpus(fake_cuda):
    x = ag.tensor([1.0, 2.0], device="cuda:0")
    y = x.to("cuda:1")
    assert _on_fake(y, 1) and y.device == "cuda:1"
    np.testing.assert_array_equal(y.cpu().numpy(), [1.0, 2.0])


def test_ops_on_a_second_gpu_stay_there(fake_cuda):
    x = ag.tensor([1.0, 2.0], device="cuda:1")
    assert (x * 2).device == "cuda:1"


@pytest.mark.parametrize("start", ["cpu", "cuda"])
def test_copy_backward_moves_the_gradient_back(fake_cuda, start):
    other = "cuda" if start == "cpu" else "cpu"
    x = ag.tensor([1.0, 2.0, 3.0], device=start, requires_grad=True)
    y = x.to(other)
    assert y.device == other and y.grad_fn.name() == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.device == start
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 4.0, 6.0])


def test_copy_backward_create_graph(fake_cuda):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    (g,) = ag.autograd.grad((x.cuda() ** 3).sum(), x, create_graph=True)
    assert g.device == "cpu"
    (h,) = ag.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [6.0, 12.0])


def test_inplace_on_the_gpu(fake_cuda):
    x = ag.ones(3, device="cuda")
    x.add_(1)
    x.mul_(2)
    assert _on_fake(x) and x.tolist() == [4.0, 4.0, 4.0] and x._version == 2
    w = ag.ones(3, device="cuda", requires_grad=True)
    y = w * 1
    y.exp_()
    y.sum().backward()
    assert w.grad.device is CUDA0
    np.testing.assert_allclose(w.grad.cpu().numpy(), np.full(3, np.e), rtol=1e-6)


# ----------------------------------------------------------------------------- errors

MISMATCH = ("Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!")


def test_mixing_devices_cpu_first(fake_cuda):
    # torch's TensorIterator names the first non-CPU device, then the one that differs.
    with pytest.raises(RuntimeError) as info:
        ag.ones(3) + ag.ones(3, device="cuda")
    assert str(info.value) == MISMATCH


def test_mixing_devices_cuda_first(fake_cuda):
    with pytest.raises(RuntimeError) as info:
        ag.ones(3, device="cuda") * ag.ones(3)
    assert str(info.value) == MISMATCH


def test_a_0d_cpu_tensor_joins_an_elementwise_op_on_the_gpu(fake_cuda):
    # torch's TensorIterator takes a 0-d CPU tensor among CUDA tensors, as a number
    w = ag.ones(3, device="cuda", requires_grad=True)
    scale = ag.tensor(3.0)
    y = w * scale + ag.tensor(1.0) - scale / ag.tensor(2.0)
    assert _on_fake(y) and y.tolist() == [2.5] * 3
    first = ag.tensor(2.0) * ag.ones(2, device="cuda")   # the CPU scalar first
    assert _on_fake(first) and first.tolist() == [2.0, 2.0]
    y.sum().backward()
    assert _on_fake(w.grad) and w.grad.tolist() == [3.0] * 3
    assert scale.device.type == "cpu" and scale.grad is None


def test_a_0d_cpu_tensor_as_an_in_place_operand_on_the_gpu(fake_cuda):
    x = ag.ones(2, device="cuda")
    x.add_(ag.tensor(1.5)).mul_(ag.tensor(2.0))
    assert _on_fake(x) and x.tolist() == [5.0, 5.0]
    with pytest.raises(RuntimeError) as info:   # but never as the tensor written
        ag.tensor(1.0).add_(ag.ones((), device="cuda"))
    assert str(info.value) == MISMATCH


@pytest.mark.parametrize("call", [
    lambda: ag.ones(3, device="cuda") + ag.ones(1),            # 1-d, not 0-d
    lambda: ag.stack([ag.tensor(1.0), ag.ones((), device="cuda")]),   # not elementwise
])
def test_other_cpu_tensors_among_gpu_tensors_are_refused(fake_cuda, call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == MISMATCH


def test_a_0d_cpu_tensor_that_requires_grad_is_refused_while_recording(fake_cuda):
    w = ag.ones(2, device="cuda")
    s = ag.tensor(2.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"cannot yet differentiate a 0-d CPU tensor used "
                                           r"with tensors on cuda:0"):
        w * s
    with ag.no_grad():
        assert (w * s).tolist() == [2.0, 2.0]


@pytest.mark.parametrize("name", ["Adam", "AdamW", "NAdam", "RAdam"])
def test_differentiable_optimizers_with_a_cpu_step_on_the_gpu(fake_cuda, name):
    # Their bias corrections are 0-d CPU tensors of the step, used with the GPU parameters.
    from .optim import parity
    on_cpu, cpu_nodes = parity.meta_run(ag, name, {}, device="cpu")
    on_gpu, gpu_nodes = parity.meta_run(ag, name, {}, device="cuda")
    assert gpu_nodes == cpu_nodes
    for got, want in zip(on_gpu, on_cpu, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_setitem_on_the_gpu(fake_cuda):
    """CuPy arrays have no ``writeable`` flag: writing into one must not ask for it."""
    x = ag.ones(2, 3, device="cuda", requires_grad=True)
    y = x * 1.0
    y[0, 1:] = ag.full((2,), 5.0, device="cuda")
    y.sum().backward()
    assert _on_fake(y) and y.tolist() == [[1.0, 5.0, 5.0], [1.0, 1.0, 1.0]]
    assert _on_fake(x.grad) and x.grad.tolist() == [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    plain = ag.zeros(2, device="cuda")
    plain[1] = 3.0   # nothing to record: written straight into the array
    assert _on_fake(plain) and plain.tolist() == [0.0, 3.0]


def test_copy_from_another_device(fake_cuda):
    """torch's copy_ reads from any device (loading a CPU checkpoint into a GPU model); the
    source's gradient goes back to the source's device."""
    target = ag.zeros(3, device="cuda")
    target.copy_(ag.arange(3.0))
    assert _on_fake(target) and target.tolist() == [0.0, 1.0, 2.0]
    back = ag.zeros(2, 3)
    back.copy_(ag.ones(3, device="cuda"))
    assert back.device.type == "cpu" and back.tolist() == [[1.0] * 3] * 2
    w = ag.zeros(3, device="cuda", requires_grad=True)
    src = ag.ones(3, requires_grad=True)
    out = (w * 1).copy_(src)
    assert out.grad_fn.name() == "torch::autograd::CopyBackwards"
    (out * ag.arange(3.0, device="cuda")).sum().backward()
    assert src.grad.device.type == "cpu" and src.grad.tolist() == [0.0, 1.0, 2.0]
    assert _on_fake(w.grad) and w.grad.tolist() == [0.0, 0.0, 0.0]


def test_load_state_dict_into_a_module_on_the_gpu(fake_cuda):
    cpu = ag.nn.Linear(3, 2)
    gpu = ag.nn.Linear(3, 2).to("cuda")
    gpu.load_state_dict(cpu.state_dict())
    assert _on_fake(gpu.weight) and gpu.weight.tolist() == cpu.weight.tolist()


def test_grad_tensors_on_another_device(fake_cuda):
    x = ag.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="^invalid gradient at index 0 - expected device "
                                           "cuda:0 but got cpu$"):
        (x * 2).backward(ag.ones(3))
    assert x.grad is None


def test_assigning_a_grad_on_another_device(fake_cuda):
    x = ag.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="assigned grad has data located on a different "
                                           "device"):
        x.grad = ag.ones(3)


# ----------------------------------------------------------------------------- gradients

def _matmul(x, y):
    if "matmul" not in OPS:
        pytest.skip("no matmul op registered yet")
    return x @ y


GRAPHS = {
    "elementwise": lambda x, y: ((x * y).exp() + x.sigmoid() / (y * y + 1)).sum(),
    "reductions": lambda x, y: x.sum(dim=1).mean() + (y.max() - x.std()) * x.norm(),
    "broadcast": lambda x, y: (x * y[0]).sum(),
    "matmul": lambda x, y: _matmul(x, y.t()).sum(),
}


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_gradients_live_on_their_tensors_device(fake_cuda, graph):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2)]
    grads = {}
    for dev in ("cpu", "cuda"):
        x, y = (ag.tensor(a, device=dev, requires_grad=True) for a in arrays)
        GRAPHS[graph](x, y).backward()
        assert x.grad.device == x.device and y.grad.device == y.device
        grads[dev] = [x.grad.cpu().numpy(), y.grad.cpu().numpy()]
    for cpu, gpu in zip(grads["cpu"], grads["cuda"]):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------- every op

# to_device cases move to the CPU on purpose; the moves have their own tests above.
# mkldnn_rnn_layer is oneDNN's, a CPU library: it refuses a GPU as torch's does (a GPU LSTM
# takes the native cell graph, tested in tests/nn/test_recurrent.py).
CASES = [c for c in all_cases()
         if c.op in OPS and OPS[c.op].differentiable and float_indices(c)
         and c.op not in ("to_device", "mkldnn_rnn_layer")]


FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace",
             "eye", "rand", "randn", "randint")


def _default_device(monkeypatch, device) -> None:
    """torch.set_default_device for ``ag.<factory>`` calls (constants built inside a case)."""
    for name in FACTORIES:
        factory = getattr(ag, name)

        def on_device(*args, _factory=factory, **kwargs):
            kwargs.setdefault("device", device)
            return _factory(*args, **kwargs)
        monkeypatch.setattr(ag, name, on_device)


def _run_case(case, device):
    """Forward, then the gradient of a fixed projection of the outputs, on ``device``."""
    xs = [ag.tensor(np.array(a), dtype=backend.get_dtype(np.array(a).dtype), device=device,
                    requires_grad=np.array(a).dtype.kind == "f") for a in case.inputs]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _default_device(monkeypatch, device)
        result = case.fn(ag, *xs)
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    rng = np.random.default_rng(1)
    total = None
    for out in (o for o in outs if o.is_floating_point()):
        v = ag.tensor(rng.standard_normal(tuple(out.shape)), dtype=out.dtype, device=device)
        total = (out * v).sum() if total is None else total + (out * v).sum()
    wrt = [xs[i] for i in float_indices(case)]
    if OPS[case.op].node_class.__name__ == "NotImplemented":   # torch defines no derivative
        wrt = []
    try:
        grads = ag.autograd.grad(total, wrt, allow_unused=True) if wrt else []
    except NotImplementedError as error:   # a node whose derivative torch leaves undefined
        return [o.detach().cpu().numpy() for o in outs], [], str(error)
    for t in outs + [g for g in grads if g is not None]:
        assert t.device == device, f"{case.id}: a result on {t.device}"
    return ([o.detach().cpu().numpy() for o in outs],
            [None if g is None else g.cpu().numpy() for g in grads], None)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_op_on_the_gpu_matches_the_cpu(fake_cuda, case):
    _assert_same_on_gpu_and_cpu(case)


@pytest.mark.real_cuda
@pytest.mark.skipif(not ag.cuda.is_available(), reason="no CUDA GPU (or CuPy) on this machine")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_op_on_a_real_gpu_matches_the_cpu(case):
    """The same check with CuPy itself, where a GPU exists (benchmarks/gpu_check.sh)."""
    _assert_same_on_gpu_and_cpu(case)


def _assert_same_on_gpu_and_cpu(case) -> None:
    values, grads, refused = _run_case(case, CUDA0)
    ref_values, ref_grads, ref_refused = _run_case(case, backend.CPU)
    assert refused == ref_refused, case.id
    for got, want in zip(values + grads, ref_values + ref_grads):
        if want is None:
            assert got is None, case.id
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=case.id)


def test_on_the_device_fixture(device):
    """The one test that runs on a real GPU through the ``device`` fixture."""
    x = ag.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    (x.exp() * x).sum().backward()
    assert x.grad.device == device and x.device == device
    want = np.exp([1.0, 2.0, 3.0]) * (1 + np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(x.grad.cpu().numpy(), want, rtol=1e-5)


def test_a_training_step_reads_the_gpu_once(fake_cuda):
    """Each read of a device value waits for the GPU's queue: an MLP step with
    cross_entropy and SGD reads one (the targets' bounds check), as torch's asserts do none."""
    from benchmarks.workloads import mlp   # (tests/ is a package: the repo root is on the path)
    step = mlp.tensor_model(ag, "cuda")
    step()
    fake_cuda.state.transfers = 0
    step()
    assert fake_cuda.state.transfers == 1


# ----------------------------------------------------------------------------- watching GPU work

def _watched_backward(values: bool) -> None:
    from agdebug.events import subscribe
    with subscribe(lambda event: None, values=values):
        x = ag.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
        (x.exp() * x).sum().backward()


def test_watching_gpu_work_reads_nothing_back_unless_values_are_asked_for(fake_cuda):
    fake_cuda.state.transfers = 0
    _watched_backward(values=False)
    assert fake_cuda.state.transfers == 0      # summaries: shapes, dtypes, bytes only
    _watched_backward(values=True)
    assert fake_cuda.state.transfers > 0       # previews and statistics come from the device

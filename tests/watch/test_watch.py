"""agdebug.watch on real torch: it changes nothing it watches, and leaves nothing behind."""

from __future__ import annotations

import gc
import sys
import warnings
import weakref

import pytest

import agdebug.watch
from agdebug.events import subscribe
from agdebug.watch import session

from . import scenarios

torch = pytest.importorskip("torch")


def _train(steps: int = 3) -> list:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    x, target = torch.randn(4, 5), torch.tensor([0, 2, 1, 0])
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()] + [loss.detach()]


def test_watched_results_are_bitwise_the_unwatched_ones():
    plain = _train()
    with agdebug.watch.torch() as trace:
        watched = _train()
    assert len(trace) > 50
    assert all(torch.equal(a, b) for a, b in zip(plain, watched))


def _lifetimes() -> list:
    """When each tensor and node of a chain dies, as checkpoints see it."""
    seen = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = (y * x).sum()
    refs = {"y": weakref.ref(y), "z": weakref.ref(z), "x": weakref.ref(x)}
    node = _NodeDeath(z.grad_fn)

    def check(step):
        seen.append((step, tuple(k for k, r in refs.items() if r() is None), node.dead))
    u = x.sigmoid()   # saves its own output, and is dropped without a backward
    refs["u"], dropped = weakref.ref(u), _NodeDeath(u.grad_fn)
    del u
    seen.append(("del u", refs.pop("u")() is None, dropped.dead))
    del y
    check("del y")
    z.backward()
    check("backward")
    del z
    check("del z")
    del x
    check("del x")
    return seen


class _NodeDeath:
    """Whether a node died: a finalizer on an object in its metadata (the test's own)."""

    def __init__(self, fn):
        self.died = []
        token = _Token()
        fn.metadata["test"] = token
        weakref.finalize(token, self.died.append, True)

    @property
    def dead(self) -> bool:
        return bool(self.died)


class _Token:
    pass


def test_every_tensor_and_node_is_freed_where_it_is_unwatched():
    plain = _lifetimes()
    with agdebug.watch.torch():
        watched = _lifetimes()
    assert watched == plain
    assert plain[0] == ("del u", True, True)
    assert plain[3:] == [("del z", ("y", "z"), True), ("del x", ("y", "z", "x"), True)]


def test_events_hold_no_tensors():
    with agdebug.watch.torch() as trace:
        x = torch.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        ref = weakref.ref(x)
        del x
    gc.collect()
    assert ref() is None and len(trace) > 5


def test_nothing_stays_installed_after_the_block():
    backward, grad = torch.autograd.backward, torch.autograd.grad
    enter = torch.autograd.graph.saved_tensors_hooks.__enter__
    with agdebug.watch.torch():
        assert torch.autograd.backward is not backward
        x = torch.ones(2, requires_grad=True)
        y = (x * x).sum()
    assert torch.autograd.backward is backward and torch.autograd.grad is grad
    assert torch.autograd.graph.saved_tensors_hooks.__enter__ is enter
    seen = []
    with subscribe(seen.append):
        y.backward()              # a graph made while watching, run after it
        (x * 3).sum().backward()  # and a new one
    assert seen == []
    assert x.grad.tolist() == [5.0, 5.0]


def test_watching_can_stop_and_start_again():
    for _ in range(2):
        with agdebug.watch.torch() as trace:
            scenarios.chain(torch)
        assert [e.kind for e in trace.events].count("node_started") == 5


def test_one_watch_at_a_time():
    with agdebug.watch.torch():
        with pytest.raises(RuntimeError, match="already watching"):
            with agdebug.watch.torch():
                pass


def test_a_subscriber_gets_the_same_events():
    seen = []
    with agdebug.watch.torch(subscriber=seen.append) as trace:
        scenarios.chain(torch)
    assert seen == trace.events


def _program_hooks(log: list):
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t * 1   # a copy the program makes: unpack gets it back

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).exp().sum()
    y.backward()
    return log, x.grad


def test_a_programs_own_saved_tensors_hooks_still_apply():
    plain, plain_grad = _program_hooks([])
    with agdebug.watch.torch() as trace:
        watched, grad = _program_hooks([])
    assert watched == plain and torch.equal(grad, plain_grad)
    released = [e for e in trace.events if e.kind == "saved_released"]
    assert [e.nbytes for e in released] == [8, 16]   # exp's result, then mul's self, other


def test_a_script_that_raises_keeps_its_trace():
    with pytest.raises(RuntimeError, match="the script fails"):
        with agdebug.watch.torch() as trace:
            scenarios.raises(torch)
    assert [e.kind for e in trace.events].count("backward_finished") == 1
    assert torch.autograd.backward.__module__ == "torch.autograd"


def test_without_torch_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"^agdebug.watch needs PyTorch, which is not "):
        session._import_torch()


def test_a_torch_too_old_is_named(monkeypatch):
    monkeypatch.setattr(torch, "__version__", "2.0.1")
    with pytest.raises(ImportError, match=r"PyTorch 2\.2 or newer .*this is 2\.0\.1$"):
        session._import_torch()


def test_a_parameter_watched_twice_is_reported_once_and_left_without_hooks():
    w = torch.nn.Parameter(torch.ones(2))
    for _ in range(2):
        with agdebug.watch.torch() as trace:
            for _ in range(2):   # a new AccumulateGrad each time (the old one is freed)
                (w * 2).sum().backward()
        kinds = [e.kind for e in trace.events]
        assert kinds.count("grad_accumulated") == 2
    assert not w._post_accumulate_grad_hooks


def test_a_cuda_run_is_watched_bitwise():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU for torch on this machine")

    def chain():
        x = torch.linspace(-1.0, 1.0, 8, device="cuda", requires_grad=True)
        (x * x).tanh().sum().backward()
        return x.grad.cpu()
    plain = chain()
    with agdebug.watch.torch() as trace:
        watched = chain()
    assert torch.equal(plain, watched)
    devices = {e.grads[0].device for e in trace.events if e.kind == "node_started" and e.grads}
    assert devices == {"cuda:0"}


def _changed_in_place(kind: str, anomaly: bool):
    """The error (or None) and a.grad when a saved tensor is changed in place."""
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(anomaly), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "input of another node":
            w = a * 3
            z = w.sin()
            w.add_(1)
        elif kind == "plain tensor":
            b = torch.ones(3)
            z = a * b
            b.add_(1)
        else:   # a node's own saved output
            z = a.exp()
            z.mul_(2)
        try:
            z.sum().backward()
        except RuntimeError as error:
            return str(error), a.grad
    return None, a.grad


@pytest.mark.parametrize("anomaly", [False, True])
@pytest.mark.parametrize("kind", ["input of another node", "plain tensor", "saved output"])
def test_a_saved_tensor_changed_in_place_raises_as_unwatched(kind, anomaly):
    # torch checks versions on unpack, but not under saved_tensors_hooks: the watcher's
    # own pair must not let a changed tensor through into a wrong gradient
    expected = _changed_in_place(kind, anomaly)
    with agdebug.watch.torch() as trace:
        watched = _changed_in_place(kind, anomaly)
    assert expected[0] is not None and watched[0] == expected[0]
    assert watched[1] is None and expected[1] is None
    assert [e.kind for e in trace.events].count("error") == 1


def _hooked(log: list):
    """Every kind of program hook, some replacing the gradient: the grads it gives."""
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    w = torch.tensor([2.0, 3.0, -1.0], requires_grad=True)
    y = x * w
    y.register_hook(lambda grad: grad * 3.0)
    x.register_hook(lambda grad: log.append(("x", grad.tolist())))
    z = y.exp().sum()
    z.grad_fn.register_prehook(lambda grads: (grads[0] * 0.5,))
    y.grad_fn.register_hook(lambda grads_in, grads_out: log.append(("post", len(grads_in))))
    w.register_post_accumulate_grad_hook(lambda t: log.append(("w", t.grad.tolist())))
    z.backward()
    return x.grad, w.grad


def test_program_hooks_behave_as_unwatched_and_are_told():
    plain_log, watched_log = [], []
    plain = _hooked(plain_log)
    with agdebug.watch.torch() as trace:
        watched = _hooked(watched_log)
    assert all(torch.equal(a, b) for a, b in zip(plain, watched))
    assert watched_log == plain_log and len(plain_log) == 3
    called = [(e.hook, e.replaced) for e in trace.events if e.kind == "hook_called"]
    assert called == [("pre", True), ("tensor", True), ("post", False), ("tensor", False),
                      ("post_accumulate", False)]


def _bad_hook():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0

    def wrong_size(grad):
        return grad.sum()
    y.register_hook(wrong_size)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return str(error), x.grad
    return None, x.grad


def test_a_hooks_error_is_torchs_and_leaves_torchs_state():
    plain = _bad_hook()
    with agdebug.watch.torch() as trace:
        watched = _bad_hook()
    assert plain[0] == "hook 'wrong_size' has changed the size of value"
    assert watched == plain
    assert [e.kind for e in trace.events].count("error") == 1
    with pytest.raises(RuntimeError, match="the hook fails"):
        with agdebug.watch.torch() as trace:
            scenarios.hook_raises(torch)
    errors = [e for e in trace.events if e.kind == "error"]
    assert [(e.type, e.message) for e in errors] == [("RuntimeError", "the hook fails")]


def test_no_program_hook_stays_wrapped_after_the_block():
    register = torch.autograd.function._HookMixin.__dict__["_register_hook"]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    ran = []

    def on_y(grad):
        ran.append("y")

    def on_node(grads_in, grads_out):
        ran.append("node")

    def on_x(t):
        ran.append("x")
    with agdebug.watch.torch():
        y = x * x
        y.register_hook(on_y)
        y.grad_fn.register_hook(on_node)
        x.register_post_accumulate_grad_hook(on_x)
    assert torch.autograd.function._HookMixin.__dict__["_register_hook"] is register
    assert list(y._backward_hooks.values()) == [on_y]
    assert list(x._post_accumulate_grad_hooks.values()) == [on_x]
    seen = []
    with subscribe(seen.append):
        y.sum().backward()
    assert seen == [] and ran == ["y", "node", "x"]


def test_a_hook_registered_before_watching_runs_untold():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    ran = []
    x.register_hook(lambda grad: ran.append(1))
    with agdebug.watch.torch() as trace:
        (x * 2.0).sum().backward()
    assert ran == [1]
    assert "hook_called" not in [e.kind for e in trace.events]


def _hook_with(y, kept) -> None:
    y.register_hook(lambda grad: grad * kept)
    y.grad_fn.register_prehook(lambda grads: (grads[0] * kept,))


def _dropped():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    kept = torch.ones(2)
    y = x * 2.0
    _hook_with(y, kept)
    ref = weakref.ref(kept)
    del x, y, kept
    return ref


def test_a_hook_and_what_it_holds_die_when_torch_drops_them():
    assert _dropped()() is None
    with agdebug.watch.torch():
        assert _dropped()() is None


def test_tensors_carry_the_users_names():
    with agdebug.watch.torch() as trace:
        scenarios.named(torch)
    made = [e for e in trace.events if e.kind == "node_created"]
    outputs = [t.name for e in made for t in e.outputs]
    leaves = [e.leaf.name for e in made if e.leaf is not None]
    assert sorted(leaves) == ["bias", "weight", "x"]
    assert [n for n in outputs if n] == ["h", "a", "b", "loss"]


def test_a_full_gc_pass_is_shown_only_while_torch_nodes_live():
    """The full passes a program's imports run are not about its graph; one while nodes
    live is shown (even when it frees none of them)."""
    with agdebug.watch.torch() as trace:
        gc.collect()
        x = torch.ones(2, requires_grad=True)
        y = (x * 2).sum()
        gc.collect()
        del y
        gc.collect()
    assert [e.kind for e in trace.events].count("gc_pass") == 1
    passes = [i for i, e in enumerate(trace.events) if e.kind == "gc_pass"]
    made = [i for i, e in enumerate(trace.events) if e.kind == "node_created"]
    assert made and min(made) < passes[0]


def test_saved_ints_read_as_torch_holds_them_not_as_its_getters_give_them():
    # torch's getters give a saved int64 as unsigned (``-1`` as 18446744073709551615)
    x = torch.randn(3, 5, requires_grad=True)
    with agdebug.watch.torch() as trace:
        x.transpose(-1, -2)
        x.sum(-1)
        torch.nn.functional.cross_entropy(x, torch.tensor([1, 2, 3]))
        x.narrow(0, 1, 2)
    attrs = {e.name: dict(e.attrs) for e in trace.events if e.kind == "node_created"}
    assert attrs["TransposeBackward0"] == {"dim0": "-1", "dim1": "-2"}
    assert attrs["SumBackward1"]["dim"] == "(-1,)"
    assert attrs["SumBackward1"]["keepdim"] == "False"
    assert attrs["NllLossBackward0"]["ignore_index"] == "-100"
    assert attrs["SliceBackward0"]["start"] == "1" and attrs["SliceBackward0"]["dim"] == "0"
    # (sizes and strides are the inputs' shapes and layout: the inspector shows those)
    assert not [k for k in attrs["SliceBackward0"] if k.endswith(("sizes", "strides"))]

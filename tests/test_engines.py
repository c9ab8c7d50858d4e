"""A script's ``import torch`` on agdebug's engine (``--engine agdebug``)."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

import agdebug
from agdebug.cli import main
from agdebug.debug import load_trace
from agdebug.engines import torch_on_agdebug

TRAINING_STEP = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.nn import Linear

torch.manual_seed(0)
net = nn.Sequential(Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
loss = F.mse_loss(net(x), y)
opt.zero_grad()
loss.backward()
opt.step()
print(f"loss {loss.item():.6f}")
"""


def run(source: str) -> dict:
    scope = {}
    exec(compile(textwrap.dedent(source), "<script>", "exec"), scope)
    return scope


def test_import_torch_gives_agdebug_modules():
    with torch_on_agdebug():
        scope = run(TRAINING_STEP)
        import torch.nn.functional
        import torch.optim.lr_scheduler
        from torch.utils.data import DataLoader
        from torch.distributions import Categorical
    assert DataLoader is agdebug.utils.data.DataLoader
    assert Categorical is agdebug.distributions.Categorical
    assert isinstance(scope["loss"], agdebug.Tensor)
    assert scope["F"].mse_loss is agdebug.nn.functional.mse_loss
    assert scope["Linear"] is agdebug.nn.Linear
    assert scope["torch"].nn.functional.relu is agdebug.nn.functional.relu
    assert torch.optim.lr_scheduler.StepLR is agdebug.optim.lr_scheduler.StepLR
    assert scope["net"][0].weight.grad is not None


def test_a_torch_module_agdebug_lacks_is_refused_by_name():
    with torch_on_agdebug():
        with pytest.raises(ModuleNotFoundError) as error:
            import torch.fx   # noqa: F401
        assert str(error.value) == ("No module named 'torch.fx': agdebug's engine "
                                    "does not have it (run the script with --engine torch to "
                                    "use PyTorch)")
        with pytest.raises(ModuleNotFoundError, match=r"^No module named 'torch\.utils\.dlpack'"):
            import torch.utils.dlpack   # noqa: F401


def test_a_torch_name_agdebug_lacks_is_an_attribute_error_naming_it():
    with torch_on_agdebug():
        import torch
        with pytest.raises(AttributeError) as error:
            torch.nn.functional.no_such_function  # noqa: B018 - the lookup is the test
        assert not hasattr(torch, "no_such_thing")
        with pytest.raises(AttributeError) as known:
            torch.stft  # noqa: B018 - a name torch has: agdebug.gaps says why it is missing
    assert str(error.value) == (
        "module 'torch.nn.functional' has no attribute 'no_such_function': agdebug's engine "
        "does not have torch.nn.functional.no_such_function; run the script with --engine "
        "torch to use PyTorch")
    assert str(known.value) == (
        "module 'torch' has no attribute 'stft': agdebug does not have torch.stft (not built "
        "yet: spectral and low-rank numerics); run the script with --engine torch to use "
        "PyTorch")


def test_the_process_torch_is_back_after_the_block(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))   # the process's torch
    before = {name: module for name, module in sys.modules.items() if name.startswith("torch")}
    finders = list(sys.meta_path)
    with torch_on_agdebug():
        import torch
        import torch.autograd.functional   # noqa: F401
        assert torch.tensor is agdebug.tensor
    after = {name: module for name, module in sys.modules.items() if name.startswith("torch")}
    assert after == before
    assert sys.meta_path == finders


def test_record_runs_a_torch_script_on_agdebugs_engine(tmp_path, capfd):
    script = tmp_path / "train.py"
    script.write_text(TRAINING_STEP)
    out = str(tmp_path / "train.agtrace")
    assert main(["record", "--engine", "agdebug", str(script), "-o", out]) == 0
    printed = capfd.readouterr().out
    names = {e.name for e in load_trace(out).events if e.kind == "node_created"}
    assert {"AddmmBackward0", "TanhBackward0", "MseLossBackward0"} <= names   # agdebug's nodes
    with torch_on_agdebug():
        expected = run(TRAINING_STEP.replace("print(", "(")).get("loss").item()
    assert printed.strip() == f"loss {expected:.6f}"


def test_a_missing_torch_module_in_a_script_is_one_line(tmp_path, capfd):
    script = tmp_path / "dist.py"
    script.write_text("import torch\nimport torch.fx as fx\n")
    assert main(["record", "--engine", "agdebug", str(script), "-o",
                 str(tmp_path / "dist.agtrace")]) == 1
    err = capfd.readouterr().err
    assert err.splitlines()[-2] == (
        "ModuleNotFoundError: No module named 'torch.fx': agdebug's engine does not "
        "have it (run the script with --engine torch to use PyTorch)")


def test_the_same_numbers_as_torch(tmp_path, torch):
    # the engines agree on a training step given the same parameters and data
    import numpy as np
    rng = np.random.default_rng(0)
    w, x, y = (rng.standard_normal(s).astype(np.float32) for s in ((1, 3), (8, 3), (8, 1)))
    source = """
        import torch
        w = torch.tensor(W, requires_grad=True)
        loss = torch.nn.functional.mse_loss(torch.tensor(X) @ w.T, torch.tensor(Y))
        loss.backward()
    """
    real = run(f"W, X, Y = {w.tolist()}, {x.tolist()}, {y.tolist()}\n" + textwrap.dedent(source))
    with torch_on_agdebug():
        ours = run(f"W, X, Y = {w.tolist()}, {x.tolist()}, {y.tolist()}\n"
                   + textwrap.dedent(source))
    assert type(real["loss"]) is torch.Tensor
    np.testing.assert_allclose(ours["w"].grad.numpy(), real["w"].grad.numpy(), rtol=1e-5)


def test_agdebugs_own_modules_are_not_torch_names():
    # ``torch.debug`` or ``torch.ops`` would be agdebug's internals: hasattr says no
    with torch_on_agdebug():
        import torch
        assert not hasattr(torch, "debug") and not hasattr(torch, "events")
        assert hasattr(torch, "nn") and torch.nn.Linear is agdebug.nn.Linear

"""The torch modules around the engine that scripts touch first: ``torch.accelerator``,
``torch.cuda``'s seeding, ``torch.backends``, ``torch.distributed``, ``torch.onnx``,
``torch.nn.parallel``, the constants; compared with torch on a machine without CUDA."""

from __future__ import annotations

import pytest

import agdebug as ag
from agdebug.engines import torch_on_agdebug


def test_accelerator_is_torchs_without_cuda(torch):
    assert ag.accelerator.is_available() is torch.accelerator.is_available() is False
    assert ag.accelerator.current_accelerator() is torch.accelerator.current_accelerator()
    assert ag.accelerator.device_count() == torch.accelerator.device_count() == 0
    for name in ("current_device_index", "synchronize"):
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch.accelerator, name)()
        with pytest.raises(RuntimeError) as ours:
            getattr(ag.accelerator, name)()
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("call", ["manual_seed(0)", "manual_seed_all(3)", "seed()",
                                  "seed_all()", "get_rng_state_all()", "set_rng_state_all([])",
                                  "is_bf16_supported()"])
def test_cuda_seeding_does_what_torch_does_without_cuda(torch, call):
    assert eval(f"lib.cuda.{call}", {"lib": ag}) == eval(f"lib.cuda.{call}", {"lib": torch})


def test_cuda_seeding_leaves_the_cpu_generator_alone():
    ag.manual_seed(5)
    ag.cuda.manual_seed_all(123)
    assert ag.initial_seed() == 5


@pytest.mark.parametrize("flag", ["cudnn.enabled", "cudnn.benchmark", "cudnn.deterministic",
                                  "cudnn.allow_tf32", "cudnn.benchmark_limit",
                                  "cudnn.is_available()", "cudnn.version()",
                                  "mps.is_available()", "mps.is_built()",
                                  "cuda.matmul.allow_tf32",
                                  "cuda.matmul.allow_fp16_reduced_precision_reduction",
                                  "cuda.is_built()", "cuda.flash_sdp_enabled()",
                                  "cuda.math_sdp_enabled()"])
def test_backend_flags_have_torchs_defaults(torch, flag):
    import torch.backends.cudnn  # noqa: F401 - loads torch's submodules
    assert eval(f"lib.backends.{flag}", {"lib": ag}) == \
        eval(f"lib.backends.{flag}", {"lib": torch})


def test_backend_flags_are_settable_as_scripts_set_them():
    with torch_on_agdebug():
        import torch
        import torch.backends.cudnn as cudnn
        cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.backends.cudnn.benchmark and ag.backends.cuda.matmul.allow_tf32
    ag.backends.cudnn.benchmark = False
    ag.backends.cuda.matmul.allow_tf32 = False


def test_distributed_is_unavailable_and_refuses_by_name():
    with torch_on_agdebug():
        from torch.distributed import destroy_process_group, init_process_group
        import torch.distributed as dist
        assert not dist.is_available() and not dist.is_initialized()
        with pytest.raises(RuntimeError, match=r"^torch\.distributed\.init_process_group: "
                                               r"agdebug has no distributed training"):
            init_process_group(backend="nccl")
        with pytest.raises(RuntimeError, match="destroy_process_group"):
            destroy_process_group()


def test_onnx_imports_and_refuses_export():
    with torch_on_agdebug():
        import torch
        import torch.onnx
        with pytest.raises(RuntimeError, match=r"^torch\.onnx\.export: agdebug has no ONNX"):
            torch.onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), "model.onnx")


def test_data_parallel_passes_through_as_torchs_does_without_gpus(torch):
    torch.manual_seed(0)
    ag.manual_seed(0)
    theirs = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    ours = ag.nn.parallel.DataParallel(ag.nn.Linear(3, 2))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs) and ours.device_ids == theirs.device_ids == []
    x = [[1.0, 2.0, 3.0]]
    got, want = ours(ag.tensor(x)), theirs(torch.tensor(x))
    assert got.tolist() == want.tolist() and got.grad_fn.name() == want.grad_fn.name()


def test_distributed_data_parallel_is_refused_in_one_line():
    with torch_on_agdebug():
        from torch.nn.parallel import DistributedDataParallel as DDP
        with pytest.raises(RuntimeError, match=r"^torch\.nn\.parallel\.DistributedDataParallel"
                                               r": agdebug has no distributed training"):
            DDP(ag.nn.Linear(2, 2))


def test_constants_are_torchs(torch):
    for name in ("inf", "pi", "e"):
        assert getattr(ag, name) == getattr(torch, name)
    assert ag.nan != ag.nan and ag.newaxis is torch.newaxis is None


@pytest.mark.parametrize("name", ["is_xpu", "is_mps", "is_quantized", "is_nested", "is_meta"])
def test_device_and_layout_flags_of_a_cpu_tensor(torch, name):
    assert getattr(ag.ones(2), name) is getattr(torch.ones(2), name) is False


@pytest.mark.parametrize("call", ["lib.ones(2).to_sparse()", "lib.ones(2).to_sparse_csr()",
                                  "lib.sparse_coo_tensor([[0]], [1.0], (2,))"])
def test_sparse_tensors_are_refused_in_one_line(call):
    with pytest.raises(RuntimeError, match="agdebug has no sparse tensors"):
        eval(call, {"lib": ag})


@pytest.mark.parametrize("name", ["bfloat16", "complex64", "complex128", "cfloat", "cdouble"])
def test_a_dtype_agdebug_cannot_hold_can_be_named_not_used(torch, name):
    ours, theirs = getattr(ag, name), getattr(torch, name)
    assert repr(ours) == repr(theirs) and ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_complex == theirs.is_complex
    with pytest.raises(TypeError, match=rf"^agdebug has no {repr(theirs)} tensors"):
        ag.zeros(2, dtype=ours)


def test_kernel_settings_are_remembered_as_torchs(torch):
    for lib in (ag, torch):
        assert not lib.are_deterministic_algorithms_enabled()
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        lib.use_deterministic_algorithms(False)
        assert lib.get_float32_matmul_precision() == "highest"
        lib.set_float32_matmul_precision("high")
        assert lib.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="bogus is not one of 'highest', 'high', or"):
            lib.set_float32_matmul_precision("bogus")
        lib.set_float32_matmul_precision("highest")


def test_compile_runs_the_model_eagerly():
    net = ag.nn.Linear(2, 2)
    assert ag.compile(net) is net and ag.compile(net, mode="reduce-overhead") is net

    @ag.compile(fullgraph=True)
    def double(x):
        return x * 2
    assert double(ag.ones(1)).tolist() == [2.0]

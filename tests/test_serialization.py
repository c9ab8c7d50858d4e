"""``agdebug.save`` / ``agdebug.load``: checkpoints round-trip as torch's do, and a file from
anyone is data (a damaged or hostile one is one RuntimeError line naming it)."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

import agdebug as ag


def checkpoint(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    net(lib.ones(2, 3)).sum().backward()
    opt.step()
    return net, opt, {"epoch": 3, "loss": 0.25, "best": float("inf"), "model": net.state_dict(),
                      "optimizer": opt.state_dict(), "shape": lib.Size([2, 3]),
                      "dtype": lib.float64, "pair": (1, None), "names": ["a", True]}


def round_trip(lib, obj):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer)


def shape_of(value):
    """The structure of a loaded object: container types, keys, and tensors' dtype/shape."""
    if type(value).__name__ in ("Tensor", "Parameter"):
        return ("Parameter" if type(value).__name__ == "Parameter" else "tensor",
                str(value.dtype), tuple(value.shape), value.requires_grad)
    if isinstance(value, dict):
        return (type(value).__name__, [(k, shape_of(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape_of(v) for v in value])
    return str(value)


def test_a_checkpoint_loads_with_torchs_structure(torch):
    ours = round_trip(ag, checkpoint(ag)[2])
    theirs = round_trip(torch, checkpoint(torch)[2])
    assert shape_of(ours) == shape_of(theirs)


def test_tensors_come_back_bitwise_and_tied_ones_as_one():
    w = ag.nn.Parameter(ag.randn(3, 2, dtype=ag.float64))
    loaded = round_trip(ag, {"w": w, "again": w, "view": w[1:].detach(),
                             "ints": ag.arange(5), "flag": ag.tensor([True, False])})
    assert loaded["w"] is loaded["again"] and isinstance(loaded["w"], ag.nn.Parameter)
    assert np.array_equal(loaded["w"].detach().numpy(), w.detach().numpy())
    assert loaded["view"].tolist() == w[1:].tolist() and not loaded["view"].requires_grad
    assert loaded["ints"].dtype == ag.int64 and loaded["flag"].dtype == ag.bool


def test_training_resumed_from_a_checkpoint_is_bitwise_the_same(tmp_path):
    net, opt, saved = checkpoint(ag)
    path = tmp_path / "checkpoint.pt"
    ag.save(saved, path)
    x = ag.randn(5, 3)

    def step(net, opt):
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
        return net(x).detach().numpy()
    expected = step(net, opt)
    ag.manual_seed(1)
    again = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Linear(4, 1))
    again_opt = ag.optim.Adam(again.parameters(), lr=0.01)
    loaded = ag.load(str(path), map_location="cpu", weights_only=True)
    again.load_state_dict(loaded["model"])
    again_opt.load_state_dict(loaded["optimizer"])
    assert np.array_equal(step(again, again_opt), expected)


def test_an_object_that_is_code_is_refused_with_one_line():
    with pytest.raises(TypeError, match=r"^agdebug.save stores tensors, modules and containers "
                                        r"of them .*not Generator: save its data instead$"):
        ag.save(ag.Generator(), io.BytesIO())
    net = ag.nn.Linear(2, 2)
    net.register_forward_hook(lambda *args: None)
    with pytest.raises(TypeError, match=r"^agdebug.save stores no code: .* the function "):
        ag.save(net, io.BytesIO())


class Net(ag.nn.Module):
    """A program's own model, with submodules, tied weights, a buffer and a function."""

    def __init__(self):
        super().__init__()
        self.embed, self.out = ag.nn.Embedding(5, 3), ag.nn.Linear(3, 5)
        self.out.weight = self.embed.weight
        self.layers = ag.nn.ModuleList([ag.nn.LayerNorm(3), ag.nn.Dropout(0.25)])
        self.register_buffer("steps", ag.tensor(7))
        self.activation, self.name = ag.nn.functional.relu, "net"

    def forward(self, x):
        return self.out(self.activation(self.layers[0](self.embed(x))))


def saved(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    ag.save(obj, buffer)
    buffer.seek(0)
    return buffer


def test_a_whole_module_loads_as_data_from_allowed_classes():
    net = Net().eval()
    allowed = [Net, ag.nn.Embedding, ag.nn.Linear, ag.nn.ModuleList, ag.nn.LayerNorm,
               ag.nn.Dropout, ag.nn.functional.relu]
    with ag.serialization.safe_globals(allowed):
        loaded = ag.load(saved(net))
    x = ag.tensor([0, 3, 4])
    assert type(loaded) is Net and not loaded.training and loaded.name == "net"
    assert loaded(x).tolist() == net(x).tolist()
    assert loaded.out.weight is loaded.embed.weight and loaded.steps.item() == 7
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert ag.serialization.get_safe_globals() == []


def test_a_weights_only_load_refuses_a_class_not_allowed_as_torch_does():
    import pickle
    with pytest.raises(pickle.UnpicklingError, match=r"^Weights only load failed: "
                                                     r"tests\.test_serialization\.Net is not"):
        ag.load(saved(Net()))
    assert type(ag.load(saved(Net()), weights_only=False)) is Net


def test_a_class_the_process_has_not_imported_is_not_imported_for_it():
    import pickle
    import sys
    with zipfile.ZipFile(saved(ag.nn.Linear(2, 2))) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["data.json"] = members["data.json"].replace(b"agdebug.nn.modules.linear:Linear",
                                                        b"agdebug.nn.modules.linea2:Linear")
    data = zip_of(members)
    with pytest.raises(pickle.UnpicklingError, match=r"^agdebug.load: the file names the "
                                                     r"class agdebug.nn.modules.linea2.Linear"):
        ag.load(io.BytesIO(data), weights_only=False)
    assert "agdebug.nn.modules.linea2" not in sys.modules


def zip_of(members: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def npy(header_shape, body: bytes, dtype="<f4") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": dtype, "fortran_order": False, "shape": header_shape})
    return buffer.getvalue() + body


def ours(obj) -> bytes:
    return json.dumps({"format": "agdebug-save", "version": 1, "object": obj}).encode()


HOSTILE = {
    "garbage": b"\x80\x02not a zip at all",
    "empty": b"",
    "truncated": zip_of({"data.json": ours(1)})[:30],
    "foreign json": zip_of({"data.json": b'{"hello": "world"}'}),
    "future version": zip_of({"data.json": json.dumps({"format": "agdebug-save",
                                                       "version": 99}).encode()}),
    "deep nesting": zip_of({"data.json": b'{"format": "agdebug-save", "version": 1, '
                                         b'"object": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"}),
    "deep containers": zip_of({"data.json": ours(json.loads('{"$list": [' * 300 + "1"
                                                            + "]}" * 300))}),
    "not a list": zip_of({"data.json": ours({"$list": {"$list": 1}})}),
    "huge shape": zip_of({"data.json": ours({"$tensor": 0}),
                          "tensors/0.npy": npy((10 ** 12,), b"\0" * 16)}),
    "object array": zip_of({"data.json": ours({"$tensor": 0}),
                            "tensors/0.npy": npy((1,), b"\0" * 8, dtype="|O")}),
    "missing tensor": zip_of({"data.json": ours({"$tensor": 7})}),
    "bad index": zip_of({"data.json": ours({"$tensor": "../../etc/passwd"})}),
    "unknown dtype": zip_of({"data.json": ours({"$dtype": "__class__"})}),
    "unknown entry": zip_of({"data.json": ours({"$eval": "print(1)"})}),
    "foreign function": zip_of({"data.json": ours({"$function": "os:system"})}),
    "digits": zip_of({"data.json": b'{"format": "agdebug-save", "version": 1, "object": '
                                   + b"9" * 5000 + b"}"}),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_damaged_or_hostile_file_is_one_line_naming_it(tmp_path, name):
    path = tmp_path / f"{name.replace(' ', '_')}.pt"
    path.write_bytes(HOSTILE[name])
    with pytest.raises(RuntimeError) as error:
        ag.load(str(path))
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{path} is not a file agdebug.save "
                                                       "wrote, or it is damaged (")


def test_a_torch_checkpoint_is_refused_not_unpickled(tmp_path, torch):
    path = tmp_path / "torch.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match="agdebug reads no pickles"):
        ag.load(path)


def test_a_file_never_names_code_even_for_a_trusting_load(tmp_path):
    path = tmp_path / "call.pt"
    path.write_bytes(HOSTILE["foreign function"])
    with pytest.raises(RuntimeError, match=r"a function outside agdebug \('os:system'\)"):
        ag.load(str(path), weights_only=False)

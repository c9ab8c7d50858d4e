"""``agdebug.utils.data`` against ``torch.utils.data``: batches, collation, samplers, errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import agdebug as ag
from agdebug.utils import data

Pair = collections.namedtuple("Pair", "x y")


def plain(value):
    """A batch as nested Python data (tensors as (dtype name, values)) for comparing."""
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return (str(value.dtype).split(".")[-1], value.tolist())
    if isinstance(value, dict):
        return {key: plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [plain(v) for v in value])
    return value


def samples(lib):
    """Batches of samples of every kind default_collate handles, built with ``lib``."""
    return [
        [lib.ones(2), lib.zeros(2)],
        [1, 2, 3], [1.5, 2.0], [True, False], ["a", "b"],
        [np.ones(2, np.float32), np.zeros(2, np.float32)], [np.float64(1.5), np.float64(2)],
        [np.int64(1), np.int64(2)],
        [(lib.ones(2), 1), (lib.zeros(2), 2)], [[1, 2], [3, 4]],
        [{"a": 1, "b": lib.ones(1)}, {"a": 2, "b": lib.zeros(1)}],
        [Pair(1, 2.0), Pair(3, 4.0)],
        [lib.tensor(1), lib.tensor(2)],
    ]


@pytest.mark.parametrize("case", range(len(samples(ag))))
def test_default_collate_matches_torch(torch, case):
    from torch.utils.data import default_collate
    ours = data.default_collate(samples(ag)[case])
    theirs = default_collate(samples(torch)[case])
    assert plain(ours) == plain(theirs)


@pytest.mark.parametrize("batch", [[ag.ones(2), ag.ones(3)], [object()], [[1, 2], [3]],
                                   [np.array(["a"]), np.array(["b"])]],
                         ids=["sizes", "object", "lengths", "strings"])
def test_default_collate_errors_match_torch(torch, batch):
    from torch.utils.data import default_collate
    theirs_batch = [torch.ones(2), torch.ones(3)] if isinstance(batch[0], ag.Tensor) else batch
    with pytest.raises(Exception) as theirs:
        default_collate(theirs_batch)
    with pytest.raises(type(theirs.value)) as ours:
        data.default_collate(batch)
    assert str(ours.value) == str(theirs.value)


def loaders(lib, module):
    """DataLoaders over the same data, with each batching option."""
    dataset = module.TensorDataset(lib.arange(10.0), lib.arange(10))
    stream = _Stream(module, lib)
    return {
        "batches of 3": module.DataLoader(dataset, batch_size=3),
        "drop_last": module.DataLoader(dataset, batch_size=3, drop_last=True),
        "no batching": module.DataLoader(dataset, batch_size=None),
        "batch sampler": module.DataLoader(dataset, batch_sampler=[[0, 5], [9], [1, 2, 3]]),
        "collate_fn": module.DataLoader(dataset, batch_size=4, collate_fn=lambda b: len(b)),
        "subset": module.DataLoader(module.Subset(dataset, [4, 2, 7]), batch_size=2),
        "concat": module.DataLoader(dataset + dataset, batch_size=7),
        "stream": module.DataLoader(stream, batch_size=4),
        "stream drop_last": module.DataLoader(stream, batch_size=4, drop_last=True),
        "stream unbatched": module.DataLoader(stream, batch_size=None),
        "stacked": module.DataLoader(module.StackDataset(a=dataset, b=dataset), batch_size=5),
    }


class _Stream:
    """An IterableDataset of 10 samples (built as a subclass of each library's class)."""

    def __new__(cls, module, lib):
        class Stream(module.IterableDataset):
            def __iter__(self):
                return iter(lib.arange(10).reshape(5, 2).unbind(0) * 2)

            def __len__(self):
                return 10
        return Stream()


@pytest.mark.parametrize("name", list(loaders(ag, data)))
def test_dataloader_batches_match_torch(torch, name):
    import torch.utils.data as torch_data
    ours, theirs = loaders(ag, data)[name], loaders(torch, torch_data)[name]
    assert [plain(b) for b in ours] == [plain(b) for b in theirs]
    assert len(ours) == len(theirs)


@pytest.mark.parametrize("options", [
    {"batch_size": 0}, {"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2},
    {"persistent_workers": True}, {"shuffle": True, "sampler": [0, 1]},
    {"batch_sampler": [[0]], "batch_size": 2}, {"batch_size": None, "drop_last": True},
    {"batch_size": 2, "drop_last": 1},
], ids=repr)
def test_dataloader_option_errors_match_torch(torch, options):
    import torch.utils.data as torch_data
    with pytest.raises(Exception) as theirs:
        torch_data.DataLoader(torch_data.TensorDataset(torch.ones(3)), **options)
    with pytest.raises(type(theirs.value)) as ours:
        data.DataLoader(data.TensorDataset(ag.ones(3)), **options)
    assert str(ours.value) == str(theirs.value)


def test_stream_options_errors_match_torch(torch):
    import torch.utils.data as torch_data
    for options in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ValueError) as theirs:
            torch_data.DataLoader(_Stream(torch_data, torch), **options)
        with pytest.raises(ValueError) as ours:
            data.DataLoader(_Stream(data, ag), **options)
        assert str(ours.value) == str(theirs.value)


def test_shuffle_visits_every_sample_once_per_epoch():
    loader = data.DataLoader(data.TensorDataset(ag.arange(50)), batch_size=8, shuffle=True)
    epochs = [[i for (batch,) in loader for i in batch.tolist()] for _ in range(2)]
    assert [sorted(e) for e in epochs] == [list(range(50))] * 2
    assert epochs[0] != epochs[1] and epochs[0] != list(range(50))


@pytest.mark.parametrize("lengths", [[3, 7], [0.25, 0.75], [0.33, 0.33, 0.34], [1.0]])
def test_random_split_lengths_match_torch(torch, lengths):
    from torch.utils.data import random_split
    ours = data.random_split(range(10), lengths)
    theirs = random_split(range(10), lengths)
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == list(range(10))


def test_random_split_errors_match_torch(torch):
    from torch.utils.data import random_split
    for lengths in ([3, 3], [1.5, -0.5]):
        with pytest.raises(ValueError) as theirs:
            random_split(range(10), lengths)
        with pytest.raises(ValueError) as ours:
            data.random_split(range(10), lengths)
        assert str(ours.value) == str(theirs.value)


def test_samplers():
    assert list(data.BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(data.BatchSampler(range(7), 3, True)) == 2
    drawn = list(data.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 40))
    assert len(drawn) == 40 and set(drawn) <= {1, 3}
    assert sorted(data.SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    with_replacement = list(data.RandomSampler(range(3), replacement=True, num_samples=70))
    assert len(with_replacement) == 70 and set(with_replacement) <= {0, 1, 2}
    assert len(list(data.RandomSampler(range(4), num_samples=10))) == 10
    assert data.get_worker_info() is None


def test_a_tensor_dataset_needs_one_first_size():
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        data.TensorDataset(ag.ones(2), ag.ones(3))


def test_a_training_loop_with_a_dataloader_learns():
    ag.manual_seed(0)
    x = ag.randn(64, 3)
    y = x @ ag.tensor([[1.0], [-2.0], [0.5]])
    net = ag.nn.Linear(3, 1)
    opt = ag.optim.SGD(net.parameters(), lr=0.1)
    loader = data.DataLoader(data.TensorDataset(x, y), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in loader:
            opt.zero_grad()
            loss = ag.nn.functional.mse_loss(net(xb), yb)
            loss.backward()
            opt.step()
    assert loss.item() < 1e-3


SEEDED_ORDERS = {
    "shuffle": lambda lib, m: m.DataLoader(m.TensorDataset(lib.arange(40)), batch_size=8,
                                           shuffle=True),
    "with replacement": lambda lib, m: m.DataLoader(
        m.TensorDataset(lib.arange(40)), batch_size=8,
        sampler=m.RandomSampler(range(40), replacement=True, num_samples=70)),
    "own generator": lambda lib, m: m.DataLoader(
        m.TensorDataset(lib.arange(40)), batch_size=8, shuffle=True,
        generator=lib.Generator().manual_seed(5)),
    "sequential": lambda lib, m: m.DataLoader(m.TensorDataset(lib.arange(10)), batch_size=4),
    "random_split": lambda lib, m: [list(s) for s in m.random_split(range(12), [5, 7])],
}


@pytest.mark.parametrize("name", list(SEEDED_ORDERS))
def test_a_seeded_loader_visits_torchs_order_and_leaves_torchs_generator(torch, name):
    """Each epoch draws what torch's draws: the iterator's base seed, the sampler's seed, its
    permutation; so the order and the random numbers after it are torch's."""
    import torch.utils.data as torch_data

    def epochs(lib, module):
        lib.manual_seed(7)
        loader = SEEDED_ORDERS[name](lib, module)
        seen = [[plain(batch) for batch in loader] for _ in range(2)]
        return seen, lib.rand(3).tolist()
    assert epochs(ag, data) == epochs(torch, torch_data)


def test_sampling_with_replacement_draws_lazily(torch):
    """makemore samples ``num_samples=int(1e10)``: the first batches come at once, as
    torch's, and are torch's."""
    import itertools
    import torch.utils.data as torch_data

    def first(lib, module):
        lib.manual_seed(3)
        sampler = module.RandomSampler(range(9), replacement=True, num_samples=10 ** 10)
        return list(itertools.islice(iter(sampler), 70))
    assert first(ag, data) == first(torch, torch_data)

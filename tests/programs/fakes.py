"""Stand-ins for what the example programs download or draw: torchvision's datasets and
transforms, a gymnasium CartPole, matplotlib, tensorboard's SummaryWriter, text corpora.

Tensor data is drawn with the running engine's own ``torch`` (imported when called, so the
same code serves real torch and agdebug's engine): the same seed gives the same images on
both once agdebug draws torch's random numbers. The CartPole is NumPy, seeded by its caller.
"""

from __future__ import annotations

import math
import sys
import types

import numpy as np

# how many examples a fake dataset holds: small, so each program runs in seconds
SIZES = {"train": 128, "test": 64, "fake": 32}


class ProgramDone(Exception):
    """Raised by a stand-in to end a program that would otherwise loop until it learns."""


# ------------------------------------------------------------------ torchvision

class MNIST:
    """torchvision.datasets.MNIST's face: ``data`` (N, 28, 28) uint8, ``targets`` int64."""

    def __init__(self, root, train=True, transform=None, target_transform=None,
                 download=False):
        import torch
        n = SIZES["train" if train else "test"]
        self.data = torch.randint(0, 256, (n, 28, 28), dtype=torch.uint8)
        self.targets = torch.randint(0, 10, (n,), dtype=torch.int64)
        self.transform, self.target_transform = transform, target_transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        image, target = self.data[index], int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target


class FakeData:
    """torchvision.datasets.FakeData: random images (C, H, W) in [0, 1) and labels."""

    def __init__(self, size=None, image_size=(3, 224, 224), num_classes=10, transform=None,
                 target_transform=None, random_offset=0):
        import torch
        n = SIZES["fake"] if size is None else size
        self.data = torch.randint(0, 256, (n, image_size[1], image_size[2], image_size[0]),
                                  dtype=torch.uint8)
        self.targets = torch.randint(0, num_classes, (n,), dtype=torch.int64)
        self.transform, self.target_transform = transform, target_transform

    __len__ = MNIST.__len__
    __getitem__ = MNIST.__getitem__


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image


class ToTensor:
    """A uint8 (H, W) or (H, W, C) image to float (C, H, W) in [0, 1]."""

    def __call__(self, image):
        image = image.unsqueeze(-1) if image.dim() == 2 else image
        return image.permute(2, 0, 1).contiguous().float().div(255)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, image):
        import torch
        mean = torch.tensor(self.mean, dtype=image.dtype).view(-1, 1, 1)
        std = torch.tensor(self.std, dtype=image.dtype).view(-1, 1, 1)
        return (image - mean) / std


class Lambda:
    def __init__(self, function):
        self.function = function

    def __call__(self, image):
        return self.function(image)


class SizeCheck:
    """Resize and CenterCrop: the fake images are drawn at the size asked for already."""

    def __init__(self, size, *args, **kwargs):
        self.size = size

    def __call__(self, image):
        return image


def save_image(*args, **kwargs):
    """torchvision.utils.save_image: the programs' pictures are not compared."""


# ------------------------------------------------------------------ gymnasium

class CartPole:
    """gymnasium's CartPole-v1 dynamics (Barto, Sutton and Anderson's equations, Euler
    steps); the run ends with ProgramDone at the reset after ``episodes`` episodes."""

    episodes = 12

    def __init__(self):
        self.spec = types.SimpleNamespace(reward_threshold=475.0, max_episode_steps=500)
        self.rng, self.resets, self.state, self.steps = np.random.default_rng(0), 0, None, 0

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        else:
            self.resets += 1
            if self.resets > self.episodes:
                raise ProgramDone(f"{self.episodes} episodes")
        self.state, self.steps = self.rng.uniform(-0.05, 0.05, size=4), 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot**2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos**2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        self.steps += 1
        terminated = bool(abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * math.pi / 180)
        truncated = self.steps >= self.spec.max_episode_steps
        return self.state.astype(np.float32), 1.0, terminated, truncated, {}

    def render(self):
        pass


def make(name, **kwargs):
    assert name == "CartPole-v1", name
    return CartPole()


# ------------------------------------------------------------------ the rest

class SummaryWriter:
    """torch.utils.tensorboard.SummaryWriter: what it logs is not compared."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def _nothing(*args, **kwargs):
    return None


def sine_waves(n=100, length=1000, period=20, seed=2):
    """time_sequence_prediction/generate_sine_wave.py's data, without its file."""
    rng = np.random.RandomState(seed)
    x = np.empty((n, length), "int64")
    x[:] = np.array(range(length)) + rng.randint(-4 * period, 4 * period, n).reshape(n, 1)
    return np.sin(x / 1.0 / period).astype("float64")


def word_corpus(words=40, lines=60, seed=0) -> str:
    """Lines of words drawn from a small vocabulary: a stand-in for wikitext-2's text."""
    rng = np.random.RandomState(seed)
    vocabulary = [f"w{i}" for i in range(words)]
    return "\n".join(" ".join(rng.choice(vocabulary, rng.randint(3, 12)))
                     for _ in range(lines)) + "\n"


def names(count=200, seed=0) -> str:
    """makemore's names.txt stand-in: short lowercase words, one a line."""
    rng = np.random.RandomState(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return "\n".join("".join(rng.choice(letters, rng.randint(3, 9)))
                     for _ in range(count)) + "\n"


def cora(nodes=1600, features=32, edges=4000, classes=7, seed=0) -> tuple:
    """gcn's ./cora/cora.content and cora.cites for a random graph: (path, text) pairs."""
    rng = np.random.RandomState(seed)
    ids = rng.permutation(100000)[:nodes] + 1
    words = rng.rand(nodes, features) < 0.1
    labels = rng.randint(0, classes, nodes)
    content = "".join(f"{i}\t" + "\t".join(map(str, row.astype(int))) + f"\tclass{c}\n"
                      for i, row, c in zip(ids, words, labels))
    pairs = ids[rng.randint(0, nodes, (edges, 2))]
    cites = "".join(f"{a}\t{b}\n" for a, b in pairs if a != b)
    return (("cora/cora.content", content), ("cora/cora.cites", cites))


def shakespeare_char(tokens=4000, vocab_size=16, seed=0) -> tuple:
    """nanoGPT's data/shakespeare_char files (train.bin, val.bin as uint16, meta.pkl) for
    random characters; the pickle holds only the vocabulary, as prepare.py's does."""
    import pickle
    rng = np.random.RandomState(seed)
    chars = [chr(ord("a") + i) for i in range(vocab_size)]
    meta = {"vocab_size": vocab_size, "itos": dict(enumerate(chars)),
            "stoi": {c: i for i, c in enumerate(chars)}}
    folder = "data/shakespeare_char"
    return ((f"{folder}/train.bin", rng.randint(0, vocab_size, tokens).astype(np.uint16)
             .tobytes()),
            (f"{folder}/val.bin", rng.randint(0, vocab_size, tokens // 4).astype(np.uint16)
             .tobytes()),
            (f"{folder}/meta.pkl", pickle.dumps(meta)))


def _plot_function(name: str):
    """matplotlib.pyplot's functions all draw nothing (its dunder names stay missing)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return _nothing


def _module(name: str, **attributes) -> types.ModuleType:
    module = types.ModuleType(name, "agdebug's test stand-in")
    module.__dict__.update(attributes)
    return module


def modules() -> dict:
    """The stand-in modules by name, for ``sys.modules`` while a program runs."""
    datasets = _module("torchvision.datasets", MNIST=MNIST, FakeData=FakeData)
    transforms = _module("torchvision.transforms", Compose=Compose, ToTensor=ToTensor,
                         Normalize=Normalize, Lambda=Lambda, Resize=SizeCheck, CenterCrop=SizeCheck)
    utils = _module("torchvision.utils", save_image=save_image)
    torchvision = _module("torchvision", datasets=datasets, transforms=transforms, utils=utils)
    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.__getattr__ = _plot_function
    matplotlib = _module("matplotlib", use=_nothing, pyplot=pyplot)
    return {"torchvision": torchvision, "torchvision.datasets": datasets,
            "torchvision.transforms": transforms, "torchvision.utils": utils,
            "gymnasium": _module("gymnasium", make=make), "matplotlib": matplotlib,
            "matplotlib.pyplot": pyplot, "program_fakes": sys.modules[__name__]}

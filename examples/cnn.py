"""Train a small CNN on synthetic 12x12 images, written as a torch script.

Each image holds one noisy stroke: a horizontal bar, a vertical bar or a
diagonal. Two conv/pool stages and a linear layer learn to tell them apart.

    python examples/cnn.py            # 60 steps, a few seconds
    python examples/cnn.py --steps 5
"""

from __future__ import annotations

import argparse

import numpy as np

import agdebug as torch
from agdebug import nn, optim

SIZE = 12
CLASSES = ("horizontal", "vertical", "diagonal")


def make_images(n: int, seed: int = 0):
    """n images (n, 1, SIZE, SIZE) with Gaussian noise, and their class labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    images = rng.normal(0.0, 0.3, (n, 1, SIZE, SIZE))
    where = rng.integers(2, SIZE - 2, n)          # the row / column / offset of the stroke
    for i, (label, k) in enumerate(zip(labels, where)):
        if label == 0:
            images[i, 0, k, :] += 1.0
        elif label == 1:
            images[i, 0, :, k] += 1.0
        else:
            images[i, 0] += np.eye(SIZE, k=k - SIZE // 2)
    return torch.tensor(images, dtype=torch.float32), torch.tensor(labels)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 12x12 -> 6x6
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),   # 6x6 -> 3x3
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 3 * 3, len(CLASSES)))

    def forward(self, x):
        return self.classifier(self.features(x))


def main(steps: int = 60, log_every: int = 10) -> list[float]:
    torch.manual_seed(0)
    images, labels = make_images(256)
    model = SmallCNN()
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for step in range(1, steps + 1):
        batch = torch.randint(0, len(labels), (64,))     # a random mini-batch
        x, y = images[batch], labels[batch]
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % log_every == 0 or step == 1:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        accuracy = (model(images).argmax(1) == labels).float().mean().item()
    print(f"final loss {losses[-1]:.4f}  training accuracy {accuracy:.1%}")
    return losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    main(args.steps)

"""Train a small MLP on a synthetic two-class problem, written as a torch script.

Points in the plane; the label says whether a point lies inside the circle of
radius 1.2. A straight line cannot separate them, two hidden layers can.

    python examples/mlp.py            # 300 steps, a few seconds
    python examples/mlp.py --steps 20
"""

from __future__ import annotations

import argparse

import agdebug as torch
from agdebug import nn, optim


def make_data(n: int):
    """n points from N(0, I) and their labels: 1 inside the circle, 0 outside."""
    x = torch.randn(n, 2)
    y = (x.pow(2).sum(1) < 1.44).long()
    return x, y


def main(steps: int = 300, log_every: int = 50) -> list[float]:
    torch.manual_seed(0)
    x, y = make_data(512)
    model = nn.Sequential(
        nn.Linear(2, 32), nn.ReLU(),
        nn.Linear(32, 32), nn.Tanh(),
        nn.Linear(32, 2),             # logits for the two classes
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)   # full batch: the data set is tiny
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % log_every == 0 or step == 1:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    with torch.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"final loss {losses[-1]:.4f}  training accuracy {accuracy:.1%}")
    return losses


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    main(args.steps)

"""Demo: mlp. A real training loop: forward, loss, zero_grad, backward, optimizer step.

Three clusters of points in the plane, a two-hidden-layer MLP that classifies
them, and plain SGD. Every step builds a fresh graph (a few dozen nodes), runs
backward through it, and frees it; over the run a few hundred nodes come and go.

The data and the initial weights come from NumPy's seeded generator, so the
printed numbers are the same under torch and under agdebug.

    python -m agdebug.demos.scripts.mlp
"""

import numpy as np

import agdebug as torch
from agdebug import nn, optim

STEPS = 20


def make_data(rng, per_class: int = 32):
    """Three Gaussian clusters around the vertices of a triangle, labelled 0, 1, 2."""
    centers = np.array([[0.0, 2.0], [-1.7, -1.0], [1.7, -1.0]])
    points = np.concatenate([c + 0.8 * rng.standard_normal((per_class, 2)) for c in centers])
    labels = np.repeat(np.arange(3), per_class)
    return torch.from_numpy(points.astype(np.float32)), torch.from_numpy(labels)


def init_like_torch(model, rng):
    """Uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) weights and biases, drawn with NumPy."""
    with torch.no_grad():
        for layer in model:
            if isinstance(layer, nn.Linear):
                bound = 1 / np.sqrt(layer.in_features)
                for p in (layer.weight, layer.bias):
                    p.copy_(torch.from_numpy(rng.uniform(-bound, bound, tuple(p.shape))))


def graph_nodes(root) -> list:
    """Every node of the backward graph under root, each once."""
    seen, stack, order = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(fn for fn, _ in node.next_functions)
    return order


def evaluate(model, loss_fn, x, y) -> tuple[float, float]:
    """(loss, accuracy) without recording a graph: no backward will follow."""
    with torch.no_grad():
        logits = model(x)
        return loss_fn(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def main():
    # Step 1: data, model, loss function and optimizer.
    rng = np.random.default_rng(0)
    x, y = make_data(rng)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 3))
    init_like_torch(model, rng)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    print("Step 1:", tuple(x.shape), "points, 3 classes;",
          sum(p.numel() for p in model.parameters()), "parameters")

    # Step 2: one forward pass records the graph that backward will walk.
    loss = loss_fn(model(x), y)
    nodes = graph_nodes(loss.grad_fn)
    names = [n.name().replace("torch::autograd::", "") for n in nodes]
    print(f"Step 2: forward: loss = {loss.item():.4f}, a graph of {len(nodes)} nodes:")
    print("  " + str({name: names.count(name) for name in sorted(set(names))}))

    # Step 3: zero_grad, backward: every parameter receives a .grad of its own shape.
    optimizer.zero_grad()
    loss.backward()
    first = model[0].weight
    print("Step 3: backward: every parameter has a .grad:",
          all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters()))
    print(f"  first layer weight.grad[0] = {[round(v, 4) for v in first.grad[0].tolist()]}")

    # Step 4: the optimizer moves each parameter against its gradient; the loss drops.
    before = first.detach().clone()
    optimizer.step()
    change = (first.detach() - before).abs().max().item()
    print(f"Step 4: optimizer.step(): first weight moved by up to {change:.4f}; "
          f"loss now {evaluate(model, loss_fn, x, y)[0]:.4f}")

    # Step 5: the same four lines, repeated: that is a training loop.
    print("Step 5: training")
    for step in range(2, STEPS + 1):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        if step % 5 == 0:
            print(f"  step {step:2d}  loss {loss.item():.4f}")
    final_loss, final_accuracy = evaluate(model, loss_fn, x, y)
    print(f"  final loss {final_loss:.4f}, accuracy {final_accuracy:.0%}")


if __name__ == "__main__":
    main()

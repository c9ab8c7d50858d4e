"""Demo: higher-order. Derivatives of derivatives with create_graph=True.

With create_graph=True the backward pass is itself recorded as a graph (the
derivatives are computed with ordinary differentiable ops), so the gradient it
returns can be differentiated again, and again.

    python -m agdebug.demos.scripts.higher_order
"""

import agdebug as torch


def derivatives(f, x, order: int) -> list:
    """[f'(x), f''(x), ...] up to `order`, each by differentiating the previous one."""
    results, current = [], f(x)
    for _ in range(order):
        (current,) = torch.autograd.grad(current.sum(), x, create_graph=True)
        results.append(current)
    return results


def show(label: str, got, expected) -> None:
    values = [round(v, 6) for v in got.tolist()]
    agrees = (got - expected).abs().max().item() < 1e-12
    print(f"  {label:<8}{values!s:<38} closed form agrees: {agrees}")


def main():
    x = torch.tensor([-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True)
    print("x =", x.tolist())

    # Step 1: x**3: 3x**2, 6x, 6. Each .grad_fn shows the derivative is a graph too.
    d1, d2, d3 = derivatives(lambda t: t ** 3, x, order=3)
    print("Step 1: f(x) = x**3")
    show("f'", d1, 3 * x ** 2)
    show("f''", d2, 6 * x)
    show("f'''", d3, torch.full_like(x, 6.0))
    print("  f'' has a grad_fn, so it can be differentiated again:", d2.grad_fn is not None)

    # Step 2: tanh, whose derivatives are polynomials in t = tanh(x).
    t = torch.tanh(x.detach())
    d1, d2, d3 = derivatives(torch.tanh, x, order=3)
    print("Step 2: f(x) = tanh(x), t = tanh(x)")
    show("f'", d1, 1 - t ** 2)
    show("f''", d2, -2 * t * (1 - t ** 2))
    show("f'''", d3, -2 * (1 - t ** 2) * (1 - 3 * t ** 2))

    # Step 3: without create_graph, the gradient is a plain tensor: the chain stops.
    (g,) = torch.autograd.grad(torch.tanh(x).sum(), x)
    print("Step 3: without create_graph=True")
    print("  g.requires_grad:", g.requires_grad, "  g.grad_fn:", g.grad_fn)


if __name__ == "__main__":
    main()

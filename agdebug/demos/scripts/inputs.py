"""Demo: inputs. backward(inputs=...) and grad(outputs, inputs) run only what they need.

        x -> ExpBackward0 -+
                           +-> MulBackward0 -> SumBackward0      y = (x.exp() * w.sin()).sum()
        w -> SinBackward0 -+

Asking only for x's gradient, the engine prunes the graph to the nodes on a path
from y to x: SinBackward0 and w's AccumulateGrad never run.

    python -m agdebug.demos.scripts.inputs
"""

import agdebug as torch


def all_nodes(root):
    """Every node reachable from root, each once (in depth-first order)."""
    seen, stack, order = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(fn for fn, _ in reversed(node.next_functions))
    return order


def forward_with_spies(x, w, ran):
    """y = (x.exp() * w.sin()).sum(), with a pre-hook on every node appending its name to ran."""
    y = (x.exp() * w.sin()).sum()
    for node in all_nodes(y.grad_fn):
        label = node.name().replace("torch::autograd::", "")
        if label == "AccumulateGrad":
            label += "(x)" if node.variable is x else "(w)"
        node.register_prehook(lambda grad_outputs, label=label: ran.append(label))
    return y


def main():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    w = torch.tensor([0.0, 1.0], requires_grad=True)

    # Step 1: a plain backward runs every node and fills both .grad fields.
    ran = []
    forward_with_spies(x, w, ran).backward()
    print("Step 1: y.backward()")
    print("  nodes that ran:", ran)
    print("  x.grad is None:", x.grad is None, "  w.grad is None:", w.grad is None)

    # Step 2: backward(inputs=[x]): only x gets a gradient; w's side of the graph is skipped.
    x.grad = w.grad = None
    ran = []
    forward_with_spies(x, w, ran).backward(inputs=[x])
    print("Step 2: y.backward(inputs=[x])")
    print("  nodes that ran:", ran)
    print("  x.grad is None:", x.grad is None, "  w.grad is None:", w.grad is None)

    # Step 3: autograd.grad(y, x) prunes the same way, and even x's AccumulateGrad does not
    # run: grad() hands the gradient back instead of accumulating it into x.grad.
    x.grad = None
    ran = []
    (gx,) = torch.autograd.grad(forward_with_spies(x, w, ran), x)
    print("Step 3: gx, = autograd.grad(y, x)")
    print("  nodes that ran:", ran)
    print("  gx =", gx, "  x.grad is None:", x.grad is None)


if __name__ == "__main__":
    main()

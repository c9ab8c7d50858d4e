"""Demo: diamond. A tensor used twice gets one gradient: the sum of both paths.

        x -> h = x * 3 -> a = h * 4 -+
                       -> b = h * 5 -+-> y = (a + b).sum()

dy/dh has two contributions (4 and 5). The engine sums them in h's node's
input buffer and runs that node ONCE with the total (9); it never runs h's
node once per path.

    python -m agdebug.demos.scripts.diamond
"""

import agdebug as torch


def main():
    # Step 1: the forward pass: h feeds two branches that meet again in y.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    a = h * 4
    b = h * 5
    y = (a + b).sum()
    print("Step 1: h = x * 3; a = h * 4; b = h * 5; y = (a + b).sum()")

    # Step 2: watch each branch hand its contribution to h (node post hooks) ...
    def branch_hook(name):
        def hook(grad_inputs, grad_outputs):
            print(f"  {name}'s node ran: its contribution to dy/dh =", grad_inputs[0])
        return hook

    a.grad_fn.register_hook(branch_hook("a"))
    b.grad_fn.register_hook(branch_hook("b"))

    # ... and what reaches h (a tensor hook) and h's node (a node pre-hook).
    h.register_hook(lambda grad: print("  tensor hook on h fired with dy/dh =", grad))
    h.grad_fn.register_prehook(
        lambda grad_outputs: print("  h's node", h.grad_fn.name(), "starts with",
                                   grad_outputs[0]))
    print("Step 2: hooks registered on a's node, b's node, h, and h's node")

    # Step 3: backward. Both branches run first; then h's hook fires once, with 4 + 5 = 9.
    print("Step 3: y.backward()")
    y.backward()
    print("  x.grad =", x.grad, " (3 * (4 + 5) = 27)")


if __name__ == "__main__":
    main()

"""Demo: hooks. Every kind of autograd hook, and the order they fire in.

    x (leaf) -> h = x * 2 -> y = (h * h).sum()

    Tensor hooks        t.register_hook(fn(grad) -> grad or None)   may replace the gradient
    retain_grad         h.retain_grad()                              keeps h.grad on a non-leaf
    Node pre-hooks      node.register_prehook(fn(grad_outputs))      before the node runs
    Node post-hooks     node.register_hook(fn(grad_inputs, grad_outputs))  after it ran
    Post-accumulate     x.register_post_accumulate_grad_hook(fn(x))  after x.grad was written

    python -m agdebug.demos.scripts.hooks
"""

import agdebug as torch


def main():
    # Step 1: the forward pass.
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h * h).sum()
    accumulate_x = h.grad_fn.next_functions[0][0]
    print("Step 1: h = x * 2; y = (h * h).sum()")
    print("  h.grad_fn:", h.grad_fn.name(), "  x's node:", accumulate_x.name())

    # Step 2: register hooks, numbered in the order we register them.
    def scale_by_ten(grad):
        print("  [1] tensor hook on h, grad =", grad, "-> returns grad * 10")
        return grad * 10  # a tensor hook that returns a tensor replaces the gradient

    h.retain_grad()
    h.register_hook(scale_by_ten)
    h.grad_fn.register_prehook(
        lambda grad_outputs: print("  [2] pre-hook of h's node, grad_outputs[0] =",
                                   grad_outputs[0]))
    h.grad_fn.register_hook(
        lambda grad_inputs, grad_outputs: print("  [3] post-hook of h's node, grad_inputs[0] =",
                                                grad_inputs[0]))
    x.register_hook(lambda grad: print("  [4] tensor hook on x, grad =", grad))
    accumulate_x.register_prehook(
        lambda grad_outputs: print("  [5] pre-hook of x's AccumulateGrad"))
    accumulate_x.register_hook(
        lambda grad_inputs, grad_outputs: print("  [6] post-hook of x's AccumulateGrad"))
    x.register_post_accumulate_grad_hook(
        lambda leaf: print("  [7] post-accumulate-grad hook, x.grad =", leaf.grad))
    print("Step 2: hooks [1]-[7] registered (and h.retain_grad())")

    # Step 3: backward, and the firing order. Notice:
    # - [1] replaced the gradient, and h.grad holds the replaced value: retain_grad was
    #   called first, yet it stores h's gradient after all of h's tensor hooks ran;
    # - a tensor hook on a leaf [4] is a pre-hook of its AccumulateGrad node;
    # - [7] fires before [6]: it runs inside AccumulateGrad, right after x.grad is written.
    print("Step 3: y.backward()")
    y.backward()
    print("  h.grad =", h.grad, " (2h = [4, 8], times 10 from hook [1])")
    print("  x.grad =", x.grad)


if __name__ == "__main__":
    main()

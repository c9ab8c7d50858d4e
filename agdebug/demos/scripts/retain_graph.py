"""Demo: retain-graph. What backward frees, and what retain_graph=True keeps.

A node saves the tensors its derivative needs (x * y saves both x and y).
backward() frees them after the node runs, so a second backward through the
same graph fails; retain_graph=True keeps them.

    python -m agdebug.demos.scripts.retain_graph
"""

import textwrap

import agdebug as torch


def saved_state(node) -> str:
    """'available' if the node still holds its saved tensors, else 'freed'."""
    try:
        saved = node._saved_self
    except RuntimeError:
        return "freed (reading node._saved_self raises the error shown in step 3)"
    return "available" if saved is not None else "none saved"


def main():
    # Step 1: a forward pass. MulBackward0 saves both factors for its derivative.
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    y = (x * w).sum()
    mul = y.grad_fn.next_functions[0][0]
    print("Step 1: y = (x * w).sum()")
    print("  graph:", y.grad_fn.name(), "->", mul.name())
    print("  mul._saved_self is x:", mul._saved_self is x)
    print("  mul._saved_other is w:", mul._saved_other is w)

    # Step 2: backward() without retain_graph frees the saved tensors after use.
    y.backward()
    print("Step 2: y.backward()")
    print("  x.grad =", x.grad, " (= w)")
    print("  mul's saved tensors:", saved_state(mul))

    # Step 3: a second backward through the same graph raises torch's error.
    print("Step 3: y.backward() again")
    try:
        y.backward()
    except RuntimeError as error:
        print("  RuntimeError:")
        print(textwrap.fill(str(error), width=88, initial_indent="    ",
                            subsequent_indent="    "))

    # Step 4: build the graph again and keep it with retain_graph=True.
    x.grad = None
    y = (x * w).sum()
    mul = y.grad_fn.next_functions[0][0]
    y.backward(retain_graph=True)
    print("Step 4: a new graph, y.backward(retain_graph=True)")
    print("  mul's saved tensors:", saved_state(mul))
    print("  mul._saved_other =", mul._saved_other)

    # Step 5: the retained graph can be run again; gradients accumulate in x.grad.
    y.backward()
    print("Step 5: y.backward() again works; x.grad accumulated twice =", x.grad)
    print("  and that last backward freed the graph:", saved_state(mul))


if __name__ == "__main__":
    main()

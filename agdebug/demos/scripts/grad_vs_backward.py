"""Demo: grad-vs-backward. backward() accumulates into .grad; autograd.grad() returns.

    python -m agdebug.demos.scripts.grad_vs_backward
"""

import agdebug as torch


def loss_of(x):
    """A small scalar function of x: sum(x**2), whose gradient is 2x."""
    return (x * x).sum()


def main():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)

    # Step 1: a leaf starts with no gradient at all (None, not zeros).
    print("Step 1: x =", x.detach(), "  x.grad =", x.grad)

    # Step 2: backward() writes dL/dx into x.grad.
    loss_of(x).backward()
    print("Step 2: loss.backward()            x.grad =", x.grad)

    # Step 3: a second backward (on a new graph) ADDS to x.grad: gradients accumulate.
    # That is why training loops call optimizer.zero_grad() before each backward.
    loss_of(x).backward()
    print("Step 3: another loss.backward()    x.grad =", x.grad, " (2 * 2x: summed)")

    # Step 4: autograd.grad returns the gradient and leaves x.grad untouched.
    (gx,) = torch.autograd.grad(loss_of(x), x)
    print("Step 4: gx, = autograd.grad(loss, x)")
    print("  gx =", gx)
    print("  x.grad =", x.grad, " (unchanged)")

    # Step 5: zeroing .grad by hand, the way optimizer.zero_grad() does it (set to None).
    x.grad = None
    loss_of(x).backward()
    print("Step 5: x.grad = None; loss.backward()  x.grad =", x.grad, " (fresh, not summed)")

    # Step 6: grad() of several inputs at once returns a tuple, one gradient per input.
    w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
    gx, gw = torch.autograd.grad((x * w).sum(), (x, w))
    print("Step 6: gx, gw = autograd.grad((x * w).sum(), (x, w))")
    print("  gx =", gx, "(= w)   gw =", gw, "(= x)")
    print("  w.grad =", w.grad)


if __name__ == "__main__":
    main()

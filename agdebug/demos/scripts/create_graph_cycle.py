"""Demo: create-graph-cycle. backward(create_graph=True) leaks; autograd.grad does not.

With create_graph=True the gradient written into x.grad has a graph of its own,
and that graph ends at x's AccumulateGrad node, which holds x. So:

    x -> x.grad -> x.grad.grad_fn -> ... -> AccumulateGrad -> x

torch keeps that cycle partly in C++, where Python's garbage collector cannot
see it: `del` and gc.collect() do not free x; only `x.grad = None` does.

    python -m agdebug.demos.scripts.create_graph_cycle
"""

import gc
import warnings
import weakref

import agdebug as torch


def reaches_accumulator_of(node, leaf) -> bool:
    """True if the backward graph below `node` ends at the AccumulateGrad holding `leaf`."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.name() == "torch::autograd::AccumulateGrad" and node.variable is leaf:
            return True
        stack.extend(fn for fn, _ in node.next_functions)
    return False


def main():
    # Step 1: backward(create_graph=True). torch warns about exactly this.
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 3).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y.backward(create_graph=True)
    print("Step 1: y = (x ** 3).sum(); y.backward(create_graph=True)")
    # torch gives this warning once per process: a second run in the same process is silent.
    warned = [str(c.message) for c in caught if "reference cycle" in str(c.message)]
    print("  UserWarning:", warned[0].split(". ")[0] + "." if warned else "(given earlier)")

    # Step 2: follow the cycle. x.grad has a grad_fn, and its graph ends at x's accumulator.
    print("Step 2: the cycle")
    print("  x.grad =", x.grad.detach(), " (3 x**2)")
    print("  x.grad.grad_fn is not None:", x.grad.grad_fn is not None)
    print("  x.grad's graph reaches the AccumulateGrad whose .variable is x:",
          reaches_accumulator_of(x.grad.grad_fn, x))

    # Step 3: drop every name we hold and run the cyclic garbage collector.
    alive = weakref.ref(x)
    del x, y
    gc.collect()
    print("Step 3: del x, y; gc.collect()")
    print("  x is still alive (the leak):", alive() is not None)

    # Step 4: the cure torch's docs give: set .grad to None, which breaks the cycle.
    leaf = alive()
    leaf.grad = None
    del leaf
    print("Step 4: x.grad = None; del x")
    print("  x is freed, no gc.collect() needed:", alive() is None)

    # Step 5: autograd.grad(create_graph=True) returns the gradient instead of storing it
    # in x.grad, so x does not own it: no cycle, plain reference counting frees everything.
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    gx, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    print("Step 5: gx, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)")
    print("  x.grad is None:", x.grad is None)
    alive = weakref.ref(x)
    del x
    print("  after del x, gx's graph still holds x:", alive() is not None)
    del gx
    print("  after del gx, x is freed, no gc.collect() needed:", alive() is None)


if __name__ == "__main__":
    main()

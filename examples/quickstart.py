"""A first look at agdebug: the graph a forward pass records, and what backward frees.

Run it with plain Python:  python examples/quickstart.py
"""

import agdebug as torch  # agdebug speaks torch's autograd API

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x.exp() * x).sum()

# The forward pass recorded a graph of backward nodes, named as torch names them.
print("y =", y)
print("y.grad_fn:", y.grad_fn.name(), "->", [fn.name() for fn, _ in y.grad_fn.next_functions])

# backward() accumulates dy/dx into x.grad. retain_graph=True keeps the saved tensors.
y.backward(retain_graph=True)
print("x.grad after one backward:", x.grad)

# autograd.grad returns the gradient instead; create_graph=True makes it differentiable.
gx, = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx =", gx, "(it has a grad_fn:", gx.grad_fn.name() + ")")
print("d2y/dx2 (diagonal) =", torch.autograd.grad(gx.sum(), x)[0])

# That last call did not retain the graph, so the saved tensors are gone now:
try:
    y.backward()
except RuntimeError as error:
    print("second backward:", str(error)[:75] + "...")

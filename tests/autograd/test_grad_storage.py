"""Where a leaf's first .grad comes from: stolen when no one else can see it, else copied.

torch steals the incoming gradient when its use count says nobody else holds it;
agdebug tracks the owners of gradient memory that user code could see.
"""

import numpy as np

import agdebug as ag


def test_one_gradient_sent_to_two_leaves_is_not_shared():
    a = ag.ones(3, requires_grad=True)
    b = ag.ones(3, requires_grad=True)
    (a + b).sum().backward()      # AddBackward0 passes the same gradient to both edges
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())
    a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0, 1.0]


def test_a_gradient_seen_by_a_hook_is_not_stolen():
    kept = []
    x = ag.ones(3, requires_grad=True)
    x.register_hook(lambda g: kept.append(g))
    (x * 2).sum().backward()
    assert not np.shares_memory(kept[0].numpy(), x.grad.numpy())


def test_the_users_grad_tensors_are_not_stolen():
    x = ag.ones(3, requires_grad=True)
    g = ag.full((3,), 5.0)
    x.backward(g)
    assert not np.shares_memory(g.numpy(), x.grad.numpy())
    x.grad.zero_()
    assert g.tolist() == [5.0, 5.0, 5.0]


def test_a_fresh_transposed_gradient_is_stolen_without_a_copy():
    w = ag.ones(2, 3, requires_grad=True)
    x = ag.ones(4, 3)
    (x @ w.t()).sum().backward()  # TBackward0 hands over a view of a gradient nobody holds
    assert w.grad.tolist() == [[4.0] * 3] * 2
    assert w.grad.numpy().base is not None


def test_zero_dim_gradients_accumulate_as_arrays():
    # numpy turns 0-d + 0-d into a scalar; .grad must stay a real 0-d tensor
    x = ag.tensor(2.0, requires_grad=True)
    (x * x).backward()
    (x * x).backward()
    assert x.grad.item() == 8.0 and (x.grad * 2).item() == 16.0
    y = x * 1
    (y + y).backward()            # two contributions summed in y's input buffer
    assert x.grad.item() == 10.0


def test_optimizers_step_zero_dim_parameters():
    for make in (lambda p: ag.optim.SGD([p], lr=0.1, momentum=0.9),
                 lambda p: ag.optim.Adam([p], lr=0.1)):
        p = ag.tensor(1.0, requires_grad=True)
        opt = make(p)
        for _ in range(2):
            opt.zero_grad()
            (p * p).backward()
            opt.step()
        assert p.item() < 1.0


# An input buffer sums the gradients a node receives before it runs. From the third on
# they are added in place into the buffer's own sum (torch's InputBuffer); the first one,
# which the sender may share, must never be written into.

def test_a_shared_first_gradient_is_not_written_by_later_ones(lib):
    x = lib.ones(3, requires_grad=True)
    v = lib.ones(3, requires_grad=True)
    w = x * 1
    # Created last, so run first: w's first gradient is AddBackward0's, which v gets too.
    out = (w * 2).sum() + (w * 3).sum() + (w + v).sum()
    out.backward()
    assert x.grad.tolist() == [6.0] * 3
    assert v.grad.tolist() == [1.0] * 3


def test_a_shared_first_gradient_seen_by_a_hook_stays_as_it_was(lib):
    seen = []
    x = lib.ones(2, requires_grad=True)
    w = x * 1
    y = w + 0
    y.register_hook(lambda g: seen.append(g))   # the gradient AddBackward0 passes on
    out = (w * 2).sum() + (w * 3).sum() + y.sum()
    out.backward()
    assert x.grad.tolist() == [6.0, 6.0]
    assert seen[0].tolist() == [1.0, 1.0]


def test_many_gradients_into_one_buffer_reach_hooks_as_tensors(lib):
    seen = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1
    w.register_hook(lambda g: seen.append(g))
    w.retain_grad()
    total = w * 1
    for k in range(2, 6):
        total = total + w * k
    total.sum().backward()
    assert isinstance(seen[0], type(x)) and seen[0].tolist() == [15.0, 15.0]
    assert w.grad.tolist() == [15.0, 15.0] and x.grad.tolist() == [15.0, 15.0]


def test_zero_dim_gradients_accumulate_in_place_as_arrays():
    x = ag.tensor(2.0, requires_grad=True)
    y = x * 1
    (y + y + y + y).backward()    # four contributions: two of them added in place
    assert x.grad.item() == 4.0 and x.grad.numpy().shape == ()


def test_retained_graph_gives_the_same_sums_twice():
    x = ag.ones(2, requires_grad=True)
    w = x * 1
    out = (w + w + w * 2).sum()
    out.backward(retain_graph=True)
    first = x.grad.clone()
    out.backward()
    assert first.tolist() == [4.0, 4.0] and x.grad.tolist() == [8.0, 8.0]

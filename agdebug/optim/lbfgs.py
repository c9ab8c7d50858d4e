"""L-BFGS with an optional strong-Wolfe line search, as torch computes it.

The iteration follows torch's ``lbfgs.py`` line by line on arrays. Where torch holds a 0-d
tensor (``t`` after the first iteration's scaling or a line search, ``ro``, ``H_diag``, the
directional derivatives) this holds a 0-d array or NumPy scalar of the parameters' dtype, so
float32 rounds where torch's does; the state keeps them as 0-d tensors, as torch's does.
"""

from __future__ import annotations

import numpy as np

from ..backend import xp_of
from ..graph.grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Optimizer, check_hyper, scalar

__all__ = ["LBFGS"]

_MEMORY = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


class LBFGS(Optimizer):
    """torch.optim.LBFGS: quasi-Newton steps from the last ``history_size`` curvature pairs.

    ``step`` needs a ``closure`` that zeroes the gradients, computes the loss, calls
    ``backward()`` and returns the loss; it may be called up to ``max_eval`` times per step.

    >>> import agdebug as ag
    >>> w = ag.nn.Parameter(ag.tensor([3.0, -1.0]))
    >>> opt = ag.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> loss = opt.step(closure)
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, 1.0]
    """

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval=None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                 history_size: int = 100, line_search_fn=None):
        check_hyper("learning rate", lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ---------------------------------------------------------

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p._grad is None:
                views.append(xp_of(p._data).zeros(p._data.size, dtype=p._data.dtype))
            else:
                views.append(p._grad._data.ravel())
        return xp_of(views[0]).concatenate(views)

    def _add_grad(self, step_size, update) -> None:
        offset = 0
        for p in self._params:
            p._data += step_size * update[offset:offset + p._data.size].reshape(p._data.shape)
            p._bump_version()
            offset += p._data.size

    def _clone_param(self) -> list:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data: list) -> None:
        for p, data in zip(self._params, params_data):
            p._data[...] = data
            p._bump_version()

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        loss = float(_evaluate(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # -- the step ----------------------------------------------------------------------------------

    def step(self, closure):
        """Up to ``max_iter`` L-BFGS iterations; returns the loss of the first evaluation."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = _evaluate(closure)
        loss = float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if _abs_max(flat_grad) <= group["tolerance_grad"]:
            return orig_loss
        mem = {key: _unwrap(state.get(key)) for key in _MEMORY}
        self._iterate(closure, group, state, mem, loss, flat_grad)
        for key in _MEMORY:
            state[key] = mem[key] if isinstance(mem[key], list) else _wrap(mem[key])
        return orig_loss

    def _iterate(self, closure, group, state, mem, loss, flat_grad) -> None:
        max_iter, tolerance_change = group["max_iter"], group["tolerance_change"]
        n_iter, current_evals = 0, 1
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            self._new_direction(group, state, mem, flat_grad)
            if mem["prev_flat_grad"] is None:
                mem["prev_flat_grad"] = flat_grad.copy()
            else:
                mem["prev_flat_grad"][...] = flat_grad
            mem["prev_loss"] = loss
            lr, d = scalar(group["lr"]), mem["d"]
            if state["n_iter"] == 1:
                mem["t"] = min(1.0, 1.0 / abs(flat_grad).sum()) * lr
            else:
                mem["t"] = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            loss, flat_grad, ls_func_evals, opt_cond = self._move(
                closure, group, mem, loss, flat_grad, gtd, n_iter, current_evals)
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= group["max_eval"] or opt_cond
                    or _abs_max(d * mem["t"]) <= tolerance_change
                    or abs(loss - mem["prev_loss"]) < tolerance_change):
                break

    def _new_direction(self, group, state, mem, flat_grad) -> None:
        """Steepest descent at first, then the two-loop recursion over the stored pairs.

        The history lists hold tensors and are changed in place, as torch's are (a list taken
        from ``state`` or ``state_dict()`` sees later steps)."""
        if state["n_iter"] == 1:
            mem.update(d=-flat_grad, old_dirs=[], old_stps=[], ro=[], H_diag=1)
            return
        y = flat_grad - mem["prev_flat_grad"]
        s = mem["d"] * mem["t"]
        ys = y.dot(s)
        if ys > 1e-10:
            if len(mem["old_dirs"]) == group["history_size"]:
                for key in ("old_dirs", "old_stps", "ro"):
                    mem[key].pop(0)
            mem["old_dirs"].append(_wrap(y))
            mem["old_stps"].append(_wrap(s))
            mem["ro"].append(_wrap(1.0 / ys))
            mem["H_diag"] = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * group["history_size"]
        mem["d"] = _two_loop(-flat_grad, mem, state["al"])

    def _move(self, closure, group, mem, loss, flat_grad, gtd, n_iter, current_evals):
        """Step along ``d``: by the line search's ``t``, or by ``t`` and re-evaluate."""
        line_search_fn, d = group["line_search_fn"], mem["d"]
        ls_func_evals, opt_cond = 0, False
        if line_search_fn is not None:
            if line_search_fn != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = self._clone_param()

            def obj_func(x, t, d):
                return self._directional_evaluate(closure, x, t, d)
            loss, flat_grad, mem["t"], ls_func_evals = _strong_wolfe(
                obj_func, x_init, mem["t"], d, loss, flat_grad, gtd,
                max_ls=group["max_eval"] - current_evals)
            self._add_grad(mem["t"], d)
            opt_cond = _abs_max(flat_grad) <= group["tolerance_grad"]
        else:
            self._add_grad(mem["t"], d)
            if n_iter != group["max_iter"]:
                loss = float(_evaluate(closure))
                flat_grad = self._gather_flat_grad()
                opt_cond = _abs_max(flat_grad) <= group["tolerance_grad"]
                ls_func_evals = 1
        return loss, flat_grad, ls_func_evals, opt_cond


# -- helpers ---------------------------------------------------------------------------------------

def _evaluate(closure):
    with enable_grad():
        return closure()


def _abs_max(array):
    return abs(array).max()


def _two_loop(q, mem: dict, al: list):
    """``H @ q`` for the L-BFGS inverse-Hessian estimate; fills ``al`` (state) in place."""
    old_dirs, old_stps, ro = mem["old_dirs"], mem["old_stps"], mem["ro"]
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = _wrap(old_stps[i]._data.dot(q) * ro[i]._data)
        q += -al[i]._data * old_dirs[i]._data
    r = q * mem["H_diag"]
    for i in range(len(old_dirs)):
        be_i = old_dirs[i]._data.dot(r) * ro[i]._data
        r += (al[i]._data - be_i) * old_stps[i]._data
    return r


def _wrap(value):
    """A state value as torch keeps it: arrays and array scalars as tensors."""
    if isinstance(value, np.generic):
        return Tensor._wrap(np.asarray(value))
    if hasattr(value, "dtype") and not isinstance(value, Tensor):
        return Tensor._wrap(value)
    return value


def _unwrap(value):
    """Arrays to compute with from a state value; lists (of tensors) stay as they are."""
    return value._data if isinstance(value, Tensor) else value


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with slopes, clipped to ``bounds``."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = _sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _sqrt(value):
    if isinstance(value, (np.generic, float, int)):
        return np.sqrt(value)
    return xp_of(value).sqrt(value)


class _Directional:
    """``phi(t)``: loss, flat gradient and slope along ``d`` at ``x + t * d``, counted."""

    def __init__(self, obj_func, x, d):
        self.obj_func, self.x, self.d, self.calls = obj_func, x, d, 0

    def __call__(self, t):
        self.calls += 1
        f_new, g_new = self.obj_func(self.x, t, self.d)
        return f_new, g_new, g_new.dot(self.d)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """torch's strong-Wolfe line search: ``(f_new, g_new, t, ls_func_evals)``."""
    phi = _Directional(obj_func, x, d)
    found = _bracket(phi, t, f, g.copy(), gtd, c1, c2, max_ls)
    f_new, g_new, t = _zoom(phi, found, f, gtd, c1, c2, tolerance_change, max_ls,
                            _abs_max(d))
    return f_new, g_new, t, phi.calls


def _bracket(phi, t, f, g, gtd, c1, c2, max_ls) -> dict:
    """Grow ``t`` until an interval holds a point that satisfies the strong Wolfe conditions
    (or one such point is found: ``done``)."""
    f_new, g_new, gtd_new = phi(t)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    ls_iter = 0
    while ls_iter < max_ls:
        pair = {"t": [t_prev, t], "f": [f_prev, f_new], "g": [g_prev, g_new],
                "gtd": [gtd_prev, gtd_new], "done": False, "ls_iter": ls_iter}
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            return pair
        if abs(gtd_new) <= -c2 * gtd:
            return {"t": [t], "f": [f_new], "g": [g_new], "gtd": None, "done": True,
                    "ls_iter": ls_iter}
        if gtd_new >= 0:
            return pair
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        t_prev, t = t, _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                          bounds=(min_step, max_step))
        f_prev, g_prev, gtd_prev = f_new, g_new.copy(), gtd_new
        f_new, g_new, gtd_new = phi(t)
        ls_iter += 1
    return {"t": [0, t], "f": [f, f_new], "g": [g, g_new], "gtd": None, "done": False,
            "ls_iter": ls_iter}


def _zoom(phi, found: dict, f, gtd, c1, c2, tolerance_change, max_ls, d_norm) -> tuple:
    """Shrink the bracket by safeguarded cubic interpolation: ``(f, g, t)`` at its low end."""
    bracket, bracket_f, bracket_g, bracket_gtd = (found[k] for k in ("t", "f", "g", "gtd"))
    done, ls_iter, insuf_progress = found["done"], found["ls_iter"], False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        t, insuf_progress = _safeguard(t, bracket, insuf_progress)
        f_new, g_new, gtd_new = phi(t)
        ls_iter += 1
        new = (t, f_new, g_new.copy(), gtd_new)
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            _set_end(bracket, bracket_f, bracket_g, bracket_gtd, high, new)
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
            continue
        if abs(gtd_new) <= -c2 * gtd:
            done = True
        elif gtd_new * (bracket[high] - bracket[low]) >= 0:
            old_low = (bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low])
            _set_end(bracket, bracket_f, bracket_g, bracket_gtd, high, old_low)
        _set_end(bracket, bracket_f, bracket_g, bracket_gtd, low, new)
    return bracket_f[low], bracket_g[low], bracket[low]


def _set_end(bracket, bracket_f, bracket_g, bracket_gtd, pos: int, values: tuple) -> None:
    bracket[pos], bracket_f[pos], bracket_g[pos], bracket_gtd[pos] = values


def _safeguard(t, bracket, insuf_progress) -> tuple:
    """Keep ``t`` at least a tenth of the bracket away from its ends (torch's rule)."""
    hi, lo = max(bracket), min(bracket)
    eps = 0.1 * (hi - lo)
    if min(hi - t, t - lo) < eps:
        if insuf_progress or t >= hi or t <= lo:
            t = hi - eps if abs(t - hi) < abs(t - lo) else lo + eps
            return t, False
        return t, True
    return t, False

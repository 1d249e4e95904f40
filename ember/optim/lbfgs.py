"""L-BFGS: quasi-Newton steps from a short history of gradient differences, with a fixed step
or a strong-Wolfe line search; ``step(closure)`` re-evaluates the model as often as it needs."""

import numbers

from ..autodiff import enable_grad, no_grad
from ..errors import DeviceError, InvalidParameterError, KindError, ShapeMismatchError
from ..ops.segments import cat
from .._tensor import Tensor, transfer, wrap
from ..ops.aliasing import written
from ._compose import as_tensor
from .lr_scheduler_base import _check_int
from .optimizer import Optimizer, _check_count, _check_number, _copy_value

__all__ = ["LBFGS"]

# the entries of LBFGS's state, PyTorch's: counts, flat vectors, lists and scalars
_COUNTS = ("func_evals", "n_iter")
_FLAT = ("d", "prev_flat_grad")
_LISTS = ("old_dirs", "old_stps", "ro", "al")
_SCALARS = ("t", "H_diag", "prev_loss")
_AFTER_STEP = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


def _num(x):
    """A scalar that may be a 0-d tensor, as a Python number (PyTorch's ``alpha=``)."""
    return x.item() if isinstance(x, Tensor) else x


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through two points with values and slopes, within
    ``bounds`` (PyTorch's port of minFunc's polyinterp)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step ``t`` along ``d`` that meets the strong Wolfe conditions (PyTorch's port of
    minFunc's lswolfe): returns ``(f_new, g_new, t, evaluations)``."""
    d_norm = d.abs().max()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new, gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point meets the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                               bracket_f[1], bracket_gtd[1])
        # a point too near an end of the bracket moves to 0.1 of its length from it
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new, gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new, gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS, as ``torch.optim.LBFGS``: one parameter group; ``step(closure)`` runs up to
    ``max_iter`` iterations (``max_eval`` evaluations of ``closure``, which must clear the
    gradients, compute the loss, call ``backward()`` and return the loss).

    Each iteration takes the direction from the last ``history_size`` gradient and step
    differences (the two-loop recursion), then steps ``lr`` along it (the first iteration
    ``min(1, 1 / |g|_1) * lr``), or, with ``line_search_fn="strong_wolfe"``, where a strong
    Wolfe line search ends. It stops early when the largest gradient entry is at most
    ``tolerance_grad``, or the loss or the step changes by less than ``tolerance_change``.
    The state (on the first parameter, as PyTorch keeps it) holds PyTorch's entries; its
    vectors are flat ember tensors and its scalars 0-d tensors or numbers, as PyTorch's.

    >>> import ember
    >>> from ember.optim import LBFGS
    >>> w = ember.tensor([3.0, -1.0], dtype="float64").require_grad()
    >>> opt = LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1.0) ** 2).sum()
    ...     _ = loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> [round(x, 6) for x in w.tolist()]
    [1.0, 1.0]
    """

    _name = "LBFGS"

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = _check_int(self._name, "max_iter", max_iter, 1) * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        """LBFGS takes one parameter group: a second one is refused (InvalidParameterError)."""
        if self.param_groups:
            raise InvalidParameterError(
                f"{self._name}: takes one parameter group (its options apply to every "
                "parameter); put all the tensors in that group", "param_group", param_group)
        super().add_param_group(param_group)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["max_iter"] = _check_int(op, "max_iter", group["max_iter"], 1)
        group["max_eval"] = _check_int(op, "max_eval", group["max_eval"], 1)
        group["tolerance_grad"] = _check_number(op, "tolerance_grad", group["tolerance_grad"],
                                                low=0.0)
        group["tolerance_change"] = _check_number(op, "tolerance_change",
                                                  group["tolerance_change"], low=0.0)
        group["history_size"] = _check_int(op, "history_size", group["history_size"], 1)
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise InvalidParameterError(
                f"{op}: line_search_fn is {group['line_search_fn']!r}; expected None or "
                "'strong_wolfe'", "line_search_fn", group["line_search_fn"])

    # -- the flat view of the parameters --------------------------------------------------
    def _params(self):
        return self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        views = []
        for i, p in enumerate(self._params()):
            g = p.grad
            if g is None:
                views.append(as_tensor(p._device.backend.optim_zeros(p._data), p).reshape(-1))
                continue
            if not isinstance(g, Tensor):
                raise InvalidParameterError(f"{self._name}.step: the .grad of parameter {i} is "
                                            f"a {type(g).__name__}; expected a Tensor or None",
                                            "grad", g)
            if g.shape != p.shape:
                raise ShapeMismatchError(
                    f"{self._name}.step: the .grad of parameter {i} has shape "
                    f"{tuple(g.shape)}, expected {tuple(p.shape)}", expected=tuple(p.shape),
                    actual=tuple(g.shape))
            if g._device is not p._device:
                raise DeviceError(f"{self._name}.step: the .grad of parameter {i} is on "
                                  f"{g._device}, the parameter on {p._device}; expected both "
                                  "on one device", (p._device, g._device))
            views.append(wrap(g._data, g._dtype).reshape(-1))
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        alpha = _num(step_size)
        offset = 0
        for p in self._params():
            n = p.numel()
            piece = update[offset:offset + n].reshape(p.shape)
            p._data = (as_tensor(p._data, p) + piece * alpha).cast(p._dtype)._data
            written(p)
            offset += n

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = self._evaluate(closure)
        flat_grad = self._gather_flat_grad()
        for p, data in zip(self._params(), x):
            p._data = data
            written(p)
        return loss, flat_grad

    def _evaluate(self, closure, keep=False):
        with enable_grad():
            loss = closure()
        value = loss
        if isinstance(loss, Tensor):
            if loss.numel() != 1:
                raise InvalidParameterError(
                    f"{self._name}.step: closure returned a tensor of shape {tuple(loss.shape)}; "
                    "expected the loss, a number or a one-element tensor", "closure",
                    tuple(loss.shape))
            value = loss.item()
        elif isinstance(loss, bool) or not isinstance(loss, numbers.Real):
            raise InvalidParameterError(
                f"{self._name}.step: closure returned a {type(loss).__name__}; expected the "
                "loss, a number or a one-element tensor", "closure", type(loss).__name__)
        value = float(value)
        return (loss, value) if keep else value

    # -- the step ---------------------------------------------------------------------------
    def step(self, closure=None):
        """Run up to ``max_iter`` L-BFGS iterations; returns the loss ``closure()`` gave
        first. ``closure`` is required.
        """
        if closure is None or not callable(closure):
            raise InvalidParameterError(
                f"{self._name}.step: closure must be a function that clears the gradients, "
                "computes the loss, calls backward() and returns the loss; got "
                f"{type(closure).__name__}", "closure", closure)
        params = self._params()
        devices = {p._device for p in params}
        if len(devices) > 1:
            raise DeviceError(f"{self._name}.step: the parameters are on {len(devices)} devices "
                              f"({sorted(map(str, devices))}); expected one", tuple(devices))
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self._state.setdefault(id(self._params()[0]), {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss, loss = self._evaluate(closure, keep=True)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.numel() == 0 or flat_grad.abs().max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")  # noqa: N806 - PyTorch's name, a state key
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        opt_cond = False
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the direction
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1  # noqa: N806
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # noqa: N806
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q + old_dirs[i] * -_num(al[i])
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r = r + old_stps[i] * _num(al[i] - be_i)
                d = r

            prev_flat_grad = flat_grad
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = [p._data for p in self._params()]

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # evaluated again, except after the last iteration
                    loss = self._evaluate(closure)
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if (d * t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss

    # -- state ------------------------------------------------------------------------------
    @property
    def state(self):
        """The state (a copy), on the first parameter as PyTorch keeps it: ``{p: {...}}``."""
        p = self._params()[0]
        st = self._state.get(id(p))
        return {} if st is None else {p: _export(st)}

    def state_dict(self):
        """The state as PyTorch lays it out: ``{"state": {0: {...}}, "param_groups": [...]}``;
        the state's vectors are ember tensors (values, never changed by later steps).

        >>> import ember
        >>> from ember.optim import LBFGS
        >>> opt = LBFGS([ember.ones(2).require_grad()], history_size=5)
        >>> sd = opt.state_dict()
        >>> sd["state"], sd["param_groups"][0]["history_size"], sd["param_groups"][0]["params"]
        ({}, 5, [0])
        """
        group = self.param_groups[0]
        entry = {k: _copy_value(v) for k, v in group.items() if k != "params"}
        entry["params"] = list(range(len(group["params"])))
        st = self._state.get(id(group["params"][0]))
        return {"state": {} if st is None else {0: _export(st)}, "param_groups": [entry]}

    def _import_state(self, op, index, p, entry, group):
        """The checked state saved for parameter ``index``: only the first holds one."""
        where = f"state of parameter {index}"
        if not isinstance(entry, dict):
            raise InvalidParameterError(f"{op}: {where} must be a dict, got "
                                        f"{type(entry).__name__}", "state_dict", index)
        if not entry:
            return None
        if index != 0:
            raise InvalidParameterError(f"{op}: {where} is not empty; {self._name} keeps its "
                                        "state on the first parameter only", "state_dict", index)
        known = _COUNTS + _FLAT + _LISTS + _SCALARS
        for name in entry:
            if name not in known:
                raise InvalidParameterError(
                    f"{op}: {where} has an entry {name!r}, which {self._name} does not keep; "
                    f"expected entries among {sorted(known)}", "state_dict", name)
        params = group["params"]
        n = sum(q.numel() for q in params)
        like = cat([as_tensor(q._data, q).reshape(-1)[:0] for q in params], 0)
        out = {}
        for name in _COUNTS:
            out[name] = _check_count(op, f"{where}: {name!r}", entry.get(name, 0))
        missing = [k for k in _AFTER_STEP if entry.get(k) is None]
        if out["n_iter"] > 0 and missing:
            raise InvalidParameterError(
                f"{op}: {where} lacks {missing}; the state after a step holds "
                f"{list(_AFTER_STEP)}", "state_dict", missing)
        for name, value in entry.items():
            what = f"{where}: {name!r}"
            if name in _COUNTS:
                continue
            if value is None:
                out[name] = None
            elif name in _FLAT:
                out[name] = _vector(op, what, value, n, like)
            elif name in ("old_dirs", "old_stps"):
                out[name] = [_vector(op, f"{what}[{i}]", v, n, like)
                             for i, v in enumerate(_list(op, what, value))]
            elif name in ("ro", "al"):
                out[name] = [None if name == "al" and v is None else
                             _scalar(op, f"{what}[{i}]", v, like)
                             for i, v in enumerate(_list(op, what, value))]
            elif name == "prev_loss":
                out[name] = _check_number(op, what, value)
            else:
                out[name] = _scalar(op, what, value, like)
        lengths = {len(out[k]) for k in ("old_dirs", "old_stps", "ro") if out.get(k) is not None}
        if len(lengths) > 1 or lengths and max(lengths) > group["history_size"]:
            raise InvalidParameterError(
                f"{op}: {where} has histories of lengths {sorted(lengths)}; expected "
                f"'old_dirs', 'old_stps' and 'ro' of one length, at most history_size="
                f"{group['history_size']}", "state_dict", sorted(lengths))
        if out.get("al") is not None and len(out["al"]) < max(lengths, default=0):
            raise InvalidParameterError(f"{op}: {where}: 'al' is shorter than the history",
                                        "state_dict", len(out["al"]))
        return {k: out[k] for k in entry if k in out} | {k: out[k] for k in _COUNTS}


def _export(state):
    return {k: list(v) if isinstance(v, list) else v for k, v in state.items()}


def _list(op, what, value):
    if not isinstance(value, (list, tuple)):
        raise InvalidParameterError(f"{op}: {what} must be a list, got {type(value).__name__}",
                                    "state_dict", what)
    return list(value)


def _float_tensor(op, what, value, like):
    """Saved ``value`` (a float tensor) in ``like``'s dtype, on its device."""
    if not isinstance(value, Tensor):
        raise InvalidParameterError(f"{op}: {what} is a {type(value).__name__}; expected a "
                                    "Tensor", "state_dict", what)
    if value.kind != "float":
        raise KindError(f"{op}: {what} is {value.dtype.name}; expected a float tensor")
    data = value._data
    if value._device is not like._device:
        data = transfer(data, value._dtype, value._device, like._device)
    return wrap(data, value._dtype).cast(like._dtype)


def _vector(op, what, value, n, like):
    if isinstance(value, Tensor) and tuple(value.shape) != (n,):
        raise ShapeMismatchError(f"{op}: {what} has shape {tuple(value.shape)}, expected "
                                 f"({n},), the parameters' elements", expected=(n,),
                                 actual=tuple(value.shape))
    return _float_tensor(op, what, value, like)


def _scalar(op, what, value, like):
    """A saved scalar: a finite number as it is, a 0-d float tensor in ``like``'s dtype."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ShapeMismatchError(f"{op}: {what} has shape {tuple(value.shape)}, expected a "
                                     "0-d tensor or a number", expected=(),
                                     actual=tuple(value.shape))
        return _float_tensor(op, what, value, like)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    return _check_number(op, what, value)

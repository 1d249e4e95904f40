"""``gradcheck`` and ``gradgradcheck``: the Jacobians that ember's autodiff gives, compared with
central finite differences (computed in float64), as PyTorch's.

``gradcheck(func, inputs)`` checks the first derivatives of ``func`` with respect to each input
that requires grad; ``gradgradcheck`` checks the second, through the gradient of ``func``
against random (or given) ``grad_outputs``. A mismatch raises ``GradcheckError`` (a GraphError,
as PyTorch's is a RuntimeError), or returns False with ``raise_exception=False``.

>>> import ember.torch as torch
>>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
>>> torch.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
True
>>> torch.autograd.gradgradcheck(lambda t: t.exp() * t, (x,))
True
"""

from ... import tensor as _tensor
from ...errors import GraphError, InvalidParameterError
from ... import rand as _rand
from ..._tensor import Tensor as _EmberTensor
from .._tensor import as_torch
from .backward import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(GraphError):
    """A Jacobian from autodiff that differs from the finite differences."""


def _outputs(value):
    outs = value if isinstance(value, (tuple, list)) else (value,)
    return [o for o in outs if isinstance(o, _EmberTensor) and o._dtype.kind == "float"]


def _values(t):
    """The elements of ``t`` as a flat list of Python floats (float64)."""
    return [float(v) for v in _EmberTensor.reshape(t, -1).tolist()]


def _zeros(rows, cols):
    return [[0.0] * cols for _ in range(rows)]


def _analytical(func, inputs, diff):
    """Per output, per differentiated input, the Jacobian (input elements x output elements)."""
    outputs = _outputs(func(*inputs))
    jacs = []
    for o in outputs:
        n = o.numel()
        cols = [_zeros(inputs[j].numel(), n) for j in diff]
        if o._node is not None:
            for k in range(n):
                seed = [0.0] * n
                seed[k] = 1.0
                seed = _tensor(seed, dtype=o.dtype, device=o.device).reshape(tuple(o.shape))
                grads = _grad(o, [inputs[j] for j in diff], seed, retain_graph=True,
                              allow_unused=True)
                for c, g in zip(cols, grads):
                    if g is not None:
                        for m, v in enumerate(_values(g)):
                            c[m][k] = v
        jacs.append(cols)
    return jacs


def _numerical(func, inputs, diff, eps):
    """The same Jacobians by central differences."""
    jacs = None
    for d, j in enumerate(diff):
        x = inputs[j]
        base = _values(x)
        for m in range(len(base)):
            values = []
            for step in (eps, -eps):
                moved = list(base)
                moved[m] += step
                t = as_torch(_tensor(moved, dtype=x.dtype, device=x.device).reshape(
                    tuple(x.shape)))
                if x.requires_grad:
                    t.requires_grad = True
                args = list(inputs)
                args[j] = t
                values.append([_values(o) for o in _outputs(func(*args))])
            if jacs is None:
                jacs = [[_zeros(inputs[i].numel(), len(v)) for i in diff] for v in values[0]]
            for k, (hi, lo) in enumerate(zip(*values)):
                jacs[k][d][m] = [(h - lo_) / (2 * eps) for h, lo_ in zip(hi, lo)]
    return jacs or []


def _close(a, n, rtol, atol):
    return all(abs(x - y) <= atol + rtol * abs(y) for ra, rn in zip(a, n) for x, y in zip(ra, rn))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check the gradients of ``func`` at ``inputs`` (a tensor or a tuple) against finite
    differences; True when they agree within ``atol + rtol * |numerical|``. The flags of
    PyTorch's checks that ember has no counterpart for (batched, forward AD) are accepted."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, x in enumerate(inputs)
            if isinstance(x, _EmberTensor) and x.requires_grad]
    if not diff:
        raise InvalidParameterError("gradcheck expects at least one input tensor to require "
                                    "gradient, but none of the them have requires_grad=True.",
                                    "inputs", inputs)
    if not check_backward_ad:
        return True
    analytical = _analytical(func, inputs, diff)
    numerical = _numerical(func, inputs, diff, eps)
    for i, (a_out, n_out) in enumerate(zip(analytical, numerical)):
        for d, (a, n) in enumerate(zip(a_out, n_out)):
            if not _close(a, n, rtol, atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {i} with respect to input "
                                     f"{diff[d]},\nnumerical:{n}\nanalytical:{a}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check the second derivatives of ``func``: ``gradcheck`` of the gradient of ``func``
    against ``grad_outputs`` (random in [-1, 1) when None), as a function of the inputs and
    of the grad_outputs."""
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if grad_outputs is None:
        outs = _outputs(func(*inputs))
        grad_outputs = []
        for o in outs:
            g = as_torch(_rand(*o.shape, dtype=o.dtype, device=o.device) * 2 - 1)
            g.requires_grad = True
            grad_outputs.append(g)
    else:
        grad_outputs = list(grad_outputs) if isinstance(grad_outputs, (tuple, list)) \
            else [grad_outputs]
    n = len(grad_outputs)

    def new_func(*args):
        xs, gs = args[:-n], args[-n:]
        outs = _outputs(func(*xs))
        diff = [x for x in xs if isinstance(x, _EmberTensor) and x.requires_grad]
        grads = _grad(outs, diff, list(gs), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

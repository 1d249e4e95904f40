"""C kernel of an Adam/AdamW step: NumPy's optim_adam in one pass over the arrays.

The NumPy kernel (ember/backends/numpy/optim.py) follows PyTorch's single-tensor Adam one
operation at a time: a dozen NumPy calls per parameter, 10-20 µs for the small parameters of
the small models of docs/performance.md, and a dozen passes over a large one. This kernel does
the same operations, in the same order and precision, element by element (no fused
multiply-add: each operation rounds as NumPy's does; the Python numbers enter as NumPy makes
them, cast to the arrays' dtype), so its values are the NumPy kernel's, bit for bit.

The step's settings that choose operations (maximize, the kind of weight decay, the lerp's
side, whether v is scaled, amsgrad) are constants of the source: one compiled kernel per
dtype and combination met.

>>> from ember.backends.numpy.jit import optim
>>> optim.adam_source("float32", (False, False, False, True, True, False))[0]
'ember_adam_float32_000110'
"""

import numpy as np

from ... import adam_scales
from .. import jit
from .compiler import C_TYPES, FLOAT_NAMES, NO_CONTRACT, PRELUDE, simd_loop

PARALLEL_NUMEL = 262144  # elements from which the threads share the step
_SOURCES = {}


def adam(p, g, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, decoupled,
         amsgrad, maximize):
    """``optim_adam``'s result (ember/backends/numpy/optim.py) by the kernel, or None where it
    does not apply (half precision, arrays of mixed dtypes or shapes or not C-contiguous, the
    kernel still compiling)."""
    dtype = p.dtype
    arrays = (p, g, m, v, vmax) if amsgrad else (p, g, m, v)
    name = FLOAT_NAMES.get(dtype)
    if name is None:
        return None
    for a in arrays:
        if a.dtype != dtype or a.shape != p.shape or not a.flags.c_contiguous:
            return None
    w = 1 - beta1
    low = abs(w) < 0.5
    flags = (maximize, decoupled and weight_decay != 0, not decoupled and weight_decay != 0,
             low, beta2 != 1, amsgrad)
    k = jit.kernel(*adam_source(name, flags))
    if k is None:
        return None
    step_size, bias_correction2_sqrt = adam_scales(step, lr, beta1, beta2)
    out = np.empty(p.shape, dtype)
    k((p, g, m, v, vmax if amsgrad else m, out), (p.size, jit.num_threads()),
      (1 - lr * weight_decay, weight_decay, w if low else w - 1, beta2, 1 - beta2,
       bias_correction2_sqrt, eps, -step_size))
    return out, m, v, vmax


def adam_source(dtype_name, flags):
    """``(name, C source)`` of the Adam step on ``dtype_name`` arrays ("float32", "float64");
    ``flags``: ``(maximize, decoupled, l2, low, scale_v, amsgrad)`` (see ``optim_adam``).
    Arrays: ``(p, g, m, v, vmax, out)`` (``vmax`` any array without amsgrad), C-contiguous, of
    one shape; ints: ``(size, threads)``; floats: ``(decay, weight_decay, w, beta2,
    1 - beta2, bias_correction2_sqrt, eps, -step_size)``. ``m``, ``v``, ``vmax`` are updated
    in place; the new parameter goes to ``out``."""
    key = (dtype_name, tuple(bool(x) for x in flags))
    found = _SOURCES.get(key)
    if found is not None:
        return found
    maximize, decoupled, l2, low, scale_v, amsgrad = key[1]
    t = C_TYPES[dtype_name]
    sqrt = "sqrtf" if t == "float" else "sqrt"
    name = f"ember_adam_{dtype_name}_" + "".join(str(int(x)) for x in key[1])
    body = f"""
        {t} wp = p[i], d = g[i];
        {"d = -d;" if maximize else ""}
        {"wp = wp * decay;" if decoupled else ""}
        {"d = d + wp * wd;" if l2 else ""}
        const {t} diff = d - m[i];
        const {t} mi = {"m[i] + diff * w" if low else "d + diff * w"};
        m[i] = mi;
        {t} vi = v[i];
        {"vi = vi * b2;" if scale_v else ""}
        vi = vi + (d * c2) * d;
        v[i] = vi;
        {f"const {t} a = vmax[i]; vi = (a > vi || a != a) ? a : vi; vmax[i] = vi;" if amsgrad else ""}
        const {t} den = {sqrt}(vi) / bc2 + eps;
        out[i] = wp + (mi / den) * step;"""
    text = PRELUDE + NO_CONTRACT + f"""
EMBER_EXPORT void {name}(char **ptr, const int64_t *n, const double *f) {{
    const {t} *p = (const {t} *)ptr[0], *g = (const {t} *)ptr[1];
    {t} *m = ({t} *)ptr[2], *v = ({t} *)ptr[3], *vmax = ({t} *)ptr[4], *out = ({t} *)ptr[5];
    const {t} decay = ({t})f[0], wd = ({t})f[1], w = ({t})f[2], b2 = ({t})f[3], c2 = ({t})f[4];
    const {t} bc2 = ({t})f[5], eps = ({t})f[6], step = ({t})f[7];
    (void)decay; (void)wd; (void)b2; (void)vmax;
{simd_loop("n[0]", "(int)n[1]", PARALLEL_NUMEL, body)}}}
"""
    _SOURCES[key] = (name, text)
    return name, text

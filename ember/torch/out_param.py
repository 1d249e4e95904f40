"""PyTorch's ``out=`` keyword for the ``ember.torch`` functions that have it in PyTorch.

``torch.add(x, y, out=o)`` computes ``x + y``, writes it into ``o`` and returns ``o`` itself;
a function with several results (``torch.max(x, 0, out=(v, i))``, ``torch.sort``,
``torch.linalg.qr`` ...) takes a tuple of tensors and returns them, as the named tuple the
function returns. As PyTorch 2.13's:

- the result is written through every alias of ``o`` (``o`` may be a view of another tensor:
  the base sees the result; ember/ops/aliasing.py);
- its dtype is cast to ``o``'s when PyTorch allows: for most functions a result of the same
  kind or a lower one (a float result into a float64 ``o``; a float result into an int64 ``o``
  raises ``CastError``, a KindError); the functions of ``_EXACT`` need ``o`` of the result's
  dtype, those of ``_SAME_KIND`` of its kind; ``sum``, ``prod``, ``cumsum`` and ``cumprod``
  compute in ``o``'s dtype, and the creation functions (``arange``, ``zeros``, ``full`` ...) make their result in
  ``o``'s dtype and on its device;
- if ``o``'s shape differs it is resized to the result's, with PyTorch's ``UserWarning`` when
  it had elements; as in PyTorch it keeps its memory from its first element on (grown when the
  result does not fit), so a tensor it views, or that views it, sees the elements written there;
- an input sharing part of ``o``'s memory (``torch.add(x[:-1], 1, out=x[1:])``) raises
  ``GraphError``, as in PyTorch; all of it (``out=x`` for an input ``x``) is fine, except for
  the functions of ``_NO_OVERLAP`` (``cat``, ``gather``, ``take`` ...);
- with grad mode on, an input (or ``o``) that requires grad raises ``GraphError`` (PyTorch's
  out= functions do not support autograd); ``o`` must be a tensor (``InvalidParameterError``)
  on the result's device (``DeviceError``). Every check runs before anything is written.

Which functions take ``out`` was read from PyTorch 2.13 at development time (calling each with
``out=``) and is kept below as data: ember never imports torch for it.

How it is wired: ``ember/torch/__init__.py`` imports this module once, right after
``globals().update(_functions)``. By then every function is in its final place (the
registry ``functions``, the ``ember.torch`` namespace, ``ember.torch.linalg``, ``.special``,
``.fft``, autocast's wrappers included), so ``install()`` wraps each listed function where it
is and nothing registered later can bypass it. One import line keeps the modules that define the
functions free of ``out`` handling; without ``out`` the wrapper calls the function directly.

>>> import ember.torch as torch
>>> o = torch.zeros(2, dtype=torch.float64)
>>> torch.add(torch.tensor([1.0, 2.0]), 1, out=o) is o, o.tolist()
(True, [2.0, 3.0])
>>> base = torch.zeros(2, 3)
>>> x = torch.tensor([[1.0, 4.0], [3.0, 2.0]])
>>> values, indices = torch.max(x, 1, out=(base[0, :2], torch.empty(0, dtype=torch.int64)))
>>> base.tolist(), indices.tolist()
([[4.0, 3.0, 0.0], [0.0, 0.0, 0.0]], [1, 0])
"""

import sys
import warnings
import weakref

from .._tensor import Family, Tensor as _T, _alias_of, _set_slot, alias, family_of
from ..autodiff.graph import _mode, no_grad
from ..errors import CastError, DeviceError, GraphError, InvalidParameterError
from ..ops.aliasing import Link, _positions, _take, leave_family, write
from ..ops.inplace import _RANK, rebind
from ._tensor import to_torch

__all__ = ["with_out", "install", "OUT_FUNCTIONS"]

# -- which functions take out= (PyTorch 2.13), by namespace --------------------------------
OUT_FUNCTIONS = {
    "torch": """
        abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin
        aminmax angle any arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax
        argmin argsort asin asinh atan atan2 atanh baddbmm batch_norm_elemt bernoulli
        bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
        bmm bucketize cat ceil chain_matmul cholesky cholesky_inverse cholesky_solve clamp
        clamp_max clamp_min clip column_stack complex concat concatenate conj_physical copysign
        cos cosh cross cummax cummin cumprod cumsum deg2rad diag diff digamma div divide dot
        dstack empty eq erf erfc erfinv exp exp2 expm1 eye fix float_power floor floor_divide
        fmax fmin fmod frac frexp frobenius_norm full gather gcd ge geqrf ger greater
        greater_equal gt hardshrink hash_tensor heaviside histc histogram hstack hypot i0
        igamma igammac index_add index_copy index_reduce index_select inner inverse isin
        isneginf isposinf kron kthvalue lcm ldexp le lerp less less_equal lgamma linspace log
        log10 log1p log2 log_softmax logaddexp logaddexp2 logcumsumexp logical_and logical_not
        logical_or logical_xor logit logspace logsumexp lt lu_solve lu_unpack masked_select
        matmul matrix_power max maximum mean median min minimum mm mode msort mul multinomial
        multiply mv mvlgamma nan_to_num nanmean nanmedian nanquantile nansum narrow_copy ne neg
        negative nextafter nonzero norm normal not_equal nuclear_norm ones orgqr ormqr outer
        polar polygamma pow prod qr quantile rad2deg rand randint randn randperm range
        reciprocal remainder renorm round row_stack rsqrt scatter scatter_add scatter_reduce
        searchsorted sgn sigmoid sign signbit sin sinc sinh slice_scatter slogdet softmax sort
        sqrt square stack std sub subtract sum svd take take_along_dim tan tanh tensordot
        threshold topk triangular_solve tril triu true_divide trunc var vdot vstack where xlogy
        zeros""",
    "linalg": """
        cholesky cholesky_ex cond cross det eig eigh eigvals eigvalsh householder_product inv
        inv_ex ldl_factor ldl_factor_ex ldl_solve lstsq lu lu_factor lu_factor_ex lu_solve
        matmul matrix_norm matrix_power matrix_rank multi_dot norm pinv qr slogdet solve
        solve_ex solve_triangular svd svdvals tensorinv tensorsolve vecdot vector_norm""",
    "special": """
        airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t
        chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w digamma entr erf
        erfc erfcx erfinv exp2 expit expm1 gammainc gammaincc gammaln hermite_polynomial_h
        hermite_polynomial_he i0 i0e i1 i1e laguerre_polynomial_l legendre_polynomial_p log1p
        log_ndtr logit logsumexp modified_bessel_i0 modified_bessel_i1 modified_bessel_k0
        modified_bessel_k1 multigammaln ndtr ndtri polygamma psi round
        scaled_modified_bessel_k0 scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t
        shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v
        shifted_chebyshev_polynomial_w sinc spherical_bessel_j0 xlog1py xlogy zeta""",
    "fft": """
        fft fft2 fftfreq fftn hfft hfft2 hfftn ifft ifft2 ifftn ihfft ihfft2 ihfftn irfft
        irfft2 irfftn rfft rfft2 rfftfreq rfftn""",
}
OUT_FUNCTIONS = {ns: frozenset(names.split()) for ns, names in OUT_FUNCTIONS.items()}

# -- PyTorch's dtype rule for out, by function (measured: each called with outs of every dtype)
# out must have the result's dtype (a function with several results: for each of them, except
# those of _TUPLE_CAST)
_EXACT = frozenset("""
    abs absolute ceil fix floor frac neg negative round sgn sign signbit trunc nan_to_num
    conj_physical isneginf isposinf bitwise_not heaviside float_power ldexp clamp clip clamp_min
    clamp_max where hardshrink complex polar matmul mm bmm mv dot vdot inner addmm addmv baddbmm
    addbmm chain_matmul tensordot cross matrix_power amax amin argmax argmin argsort norm
    frobenius_norm nuclear_norm logcumsumexp softmax log_softmax quantile nanquantile msort renorm
    histc gather take_along_dim index_select masked_select take nonzero narrow_copy index_add
    index_copy index_reduce scatter scatter_add scatter_reduce slice_scatter searchsorted bucketize
    isin diag tril triu inverse lu_solve ormqr
    linalg.cholesky linalg.cholesky_ex linalg.det linalg.eigh linalg.eigvalsh linalg.inv
    linalg.inv_ex linalg.lu linalg.lu_factor linalg.lu_factor_ex linalg.matrix_norm linalg.qr
    linalg.slogdet linalg.svd linalg.svdvals linalg.vector_norm linalg.norm linalg.matmul
    linalg.vecdot linalg.cross linalg.matrix_power linalg.solve linalg.solve_ex linalg.lu_solve
    linalg.multi_dot linalg.solve_triangular linalg.ldl_factor special.round fft.ifft fft.ihfft
""".split())
# ... those whose results cast as most single results do (lstsq's singular values excepted)
_TUPLE_CAST = {"geqrf": ("cast",) * 2, "linalg.eig": ("cast",) * 2,
               "linalg.lstsq": ("cast", "cast", "cast", "exact")}
# out must be of the result's kind (float16, float32, float64 for a float result)
_SAME_KIND = frozenset("""nansum nanmean std var fft.irfft fft.hfft fft.irfft2
    fft.irfftn fft.hfft2 fft.hfftn""".split())
# computed in out's dtype (as with dtype=out.dtype; a bool out for sum and prod takes the result
# cast, cumsum's and cumprod's cannot be bool)
_IN_OUT_DTYPE = frozenset(("sum", "prod", "cumsum", "cumprod"))
# their out holds bool or uint8
_BOOLISH = frozenset(("all", "any"))
# creation functions: the result is made in out's dtype and on its device
_FACTORIES = frozenset("""arange range zeros ones full empty eye linspace logspace rand randn
    randint randperm normal fft.fftfreq fft.rfftfreq""".split())

# an input sharing some but not all of out's memory is refused (a full overlap, ``torch.add(x,
# 1, out=x)``, is fine); the full reductions ``torch.max(x)`` and ``torch.min(x)`` do not check
# (measured: each called with an input and an out that are overlapping views of one tensor)
_NO_PARTIAL_OVERLAP = frozenset("""
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr aminmax angle arccos
    arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh atan atan2 atanh baddbmm
    bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
    cat ceil clamp clamp_max clamp_min clip column_stack concat concatenate conj_physical
    copysign cos cosh cross cumprod cumsum deg2rad digamma div divide dstack erf erfc erfinv
    exp exp2 expm1 fix floor floor_divide fmax fmin fmod frac frexp gather gcd ger
    hardshrink heaviside hstack hypot i0 igamma igammac index_add index_copy index_reduce
    index_select kron kthvalue lcm ldexp lerp lgamma linalg.cross log log10 log1p log2
    logaddexp logaddexp2 logcumsumexp logit masked_select max maximum median min minimum
    mode msort mul multiply nan_to_num neg negative nextafter outer polygamma pow rad2deg
    reciprocal remainder renorm round row_stack rsqrt scatter scatter_add scatter_reduce sgn
    sigmoid sign sin sinc sinh sort special.bessel_j0 special.bessel_j1 special.digamma
    special.entr special.erf special.erfc special.erfcx special.erfinv special.exp2
    special.expit special.expm1 special.gammainc special.gammaln special.i0 special.i0e
    special.i1 special.i1e special.log1p special.log_ndtr special.modified_bessel_i0
    special.modified_bessel_i1 special.modified_bessel_k0 special.modified_bessel_k1
    special.polygamma special.psi special.round special.sinc special.spherical_bessel_j0
    special.xlog1py special.xlogy special.zeta sqrt square stack sub subtract take
    take_along_dim tan tanh topk true_divide trunc vstack where xlogy nanmedian
""".split())
# ... and these refuse a full overlap too (an input that is out, or a view of all of it)
_NO_OVERLAP = frozenset("""cat column_stack concat concatenate cross dstack gather ger hstack
    index_select kron kthvalue linalg.cross masked_select nanmedian outer row_stack stack take
    take_along_dim vstack""".split())



def _tensors(value):
    """The tensors in ``value`` (a tensor, or lists, tuples and dicts of them)."""
    if isinstance(value, _T):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)


def _family(t):
    a = _alias_of(t)
    return a if a is None or a.__class__ is Family else a.family


def _places(t):
    """The positions of ``t``'s elements in its family's root, as a list (row-major)."""
    a = _alias_of(t)
    with no_grad():
        if a.__class__ is Family:
            return list(range(t.numel()))
        return _T.reshape(_positions(a, a.root), (-1,)).tolist()


def _check_overlap(name, args, kwargs, outs, full):
    """Refuse an input that shares part (not all, unless ``full``) of an out's memory, as
    PyTorch does."""
    for o in outs:
        family, mine = _family(o), None
        for t in _tensors((args, kwargs)):
            if t is o:
                if full:
                    raise _overlap_error(name)
                continue
            if family is None or _family(t) is not family:
                continue
            mine = _places(o) if mine is None else mine
            theirs = _places(t)
            if not full and tuple(t.shape) == tuple(o.shape) and theirs == mine:
                continue
            if not set(theirs).isdisjoint(mine):
                raise _overlap_error(name)


def _overlap_error(name):
    return GraphError(f"{name}(): unsupported operation: some elements of the input tensor and "
                      "the written-to tensor refer to a single memory location. Please clone() "
                      "the tensor before performing the operation.")


def _outs(name, out):
    """``out`` as a tuple of tensors (one for a single tensor), checked."""
    if isinstance(out, _T):
        return (out,)
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, _T) for o in out):
        return tuple(out)
    raise InvalidParameterError(f"{name}(): argument 'out' must be a Tensor (or a tuple of "
                                f"Tensors for a function with several results), got "
                                f"{type(out).__name__}", "out", out)


def _dtype_error(key, v, o):
    """The CastError for writing a result of dtype ``v`` into an out of dtype ``o`` under
    ``key``'s rule ("exact": the same dtype), or None."""
    if v is o:
        return None
    if key in _BOOLISH:
        ok = o.name in ("bool", "uint8")
    elif key in _IN_OUT_DTYPE:
        ok = o.name != "bool" or key in ("sum", "prod")
    elif key == "exact" or key in _EXACT:
        ok = False
    elif key in _SAME_KIND:
        ok = o.kind == v.kind
    else:
        ok = _RANK[o.kind] >= _RANK[v.kind]
    if ok:
        return None
    if key == "exact" or key in _EXACT or key in _BOOLISH:
        return CastError(f"{key}(): expected out tensor to have dtype {v.name}, but got {o.name} "
                         "instead")
    return CastError(f"{key}(): result type {v.name} can't be cast to the desired output type "
                     f"{o.name}")


def _resize_warning(name, o, v):
    warnings.warn(
        f"{name}(): an output with one or more elements was resized since it had shape "
        f"{list(o._data.shape)}, which does not match the required output shape "
        f"{list(v._data.shape)}. This behavior is deprecated, and in a future PyTorch release "
        "outputs will not be resized unless they have zero elements. You can explicitly reuse an "
        "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
        UserWarning, stacklevel=5)


def _write(name, o, v):
    """``o`` holds ``v`` (cast to ``o``'s dtype), resized if its shape differs."""
    if v._dtype is not o._dtype:
        v = _T.cast(v, o._dtype)
    if tuple(v._data.shape) == tuple(o._data.shape):
        rebind(o, v, name)
        return
    if o.numel() > 0:
        _resize_warning(name, o, v)
    _resize(name, o, v)


def _raw(name):
    method = getattr(_T, name)
    return getattr(method, "view_of", method)  # the op itself, not its view-recording wrapper


def _segment(t, offset, n, shape):
    """The ``n`` elements of ``t``'s memory from ``offset`` on, as a tensor of ``shape``."""
    return _raw("reshape")(_raw("narrow")(_raw("reshape")(t, (-1,)), 0, offset, n), shape)


def _resize(name, o, v):
    """``o`` resized to hold ``v``, as PyTorch resizes an out: it keeps its memory from its
    first element on (growing the memory when ``v`` does not fit), so every tensor sharing that
    memory sees the elements written there, now and on later writes."""
    data_only = not _mode.enabled
    a = _alias_of(o)
    if a is None or (a.__class__ is Family and not a.live()) or o.numel() == 0:
        leave_family(o)  # nobody shares its memory (an empty view: PyTorch's offset is lost)
        _take(o, v, data_only)
        family_of(o).version += 1  # a write, as PyTorch counts it
        return
    family = a if a.__class__ is Family else a.family
    root = o if a is family else a.root
    with no_grad():
        offset = 0 if root is o else int(_positions(a, root).reshape(-1)[0].item())
    size, n = root.numel(), v.numel()
    k = min(n, size - offset)  # the elements that fit in the memory o had
    flat, values = _raw("reshape")(root, (-1,)), _raw("reshape")(v, (-1,))
    head = [_raw("narrow")(flat, 0, 0, offset), _raw("narrow")(values, 0, 0, k),
            _raw("narrow")(flat, 0, offset + k, size - offset - k)]
    write(root, _raw("reshape")(_raw("cat")(head), tuple(root.shape)), name)
    # the memory becomes one flat tensor (grown by the elements that did not fit), and every
    # tensor of the family a view of it: the old root its first ``size`` elements, o its segment
    with no_grad():
        flat = _raw("reshape")(_T.detach(root), (-1,))
        memory = _raw("cat")([flat, _raw("narrow")(_T.detach(values), 0, k, n - k)])
    keeper = alias(memory)
    whole = ("resize", _segment, (0, size, tuple(root.shape)), {}, None)
    members = [(m, link) for m, link in family.live() if m is not o]
    if root is not o:
        members.append((root, None))
    family.members = []
    for m, link in members:
        _relink(family, m, (whole,) + (link.steps if link else ()), keeper)
    _relink(family, o, (("resize", _segment, (offset, n, tuple(v.shape)), {}, None),), keeper)
    _set_slot(keeper, family)
    _take(o, v, data_only)


def _relink(family, t, steps, root):
    _set_slot(t, Link(family, steps, root))
    family.members.append(weakref.ref(t))


def _call(fn, key, name, args, kwargs, out):
    outs = _outs(name, out)
    if _mode.enabled and any(t.requires_grad for t in _tensors((args, kwargs, outs))):
        raise GraphError(f"{name}(): functions with out=... arguments don't support automatic "
                         "differentiation, but one of the arguments requires grad.")
    if key in _NO_PARTIAL_OVERLAP and not (key in ("max", "min") and len(args) + len(kwargs) < 2):
        _check_overlap(name, args, kwargs, outs, key in _NO_OVERLAP)
    first = outs[0]
    if key in _FACTORIES and "dtype" not in kwargs and next(_tensors(args), None) is None:
        kwargs = dict(kwargs, dtype=first.dtype)
        if "device" not in kwargs:
            kwargs["device"] = first.device
    elif (key in _IN_OUT_DTYPE and "dtype" not in kwargs and len(outs) == 1
          and first._dtype.name != "bool"):
        kwargs = dict(kwargs, dtype=first.dtype)
    value = fn(*args, **kwargs)
    several = isinstance(value, tuple)
    values = tuple(value) if several else (value,)
    if not all(isinstance(v, _T) for v in values):
        raise InvalidParameterError(f"{name}(): out= is not supported here: the result is not a "
                                    "tensor", "out", out)
    if several != (isinstance(out, (tuple, list))) or len(values) != len(outs):
        want = f"a tuple of {len(values)} Tensors" if several else "a Tensor"
        raise InvalidParameterError(f"{name}(): argument 'out' must be {want} here, got "
                                    f"{type(out).__name__} of {len(outs)}", "out", out)
    rules = _TUPLE_CAST.get(key, ("exact",) * len(values)) if several else (key,)
    for o, v, rule in zip(outs, values, rules):
        if o._device != v._device:
            raise DeviceError(f"{name}(): out is on {o._device}, the result on {v._device}; "
                              "expected out on the result's device",
                              devices=(o._device, v._device))
        err = _dtype_error(rule, v._dtype, o._dtype)
        if err is not None:
            raise err
    for o, v in zip(outs, values):
        _write(name, o, v)
    if not several:
        return out
    if hasattr(value, "_fields"):
        return type(value)(*outs)
    return tuple(outs)


def with_out(fn, name, key=None):
    """``fn`` taking PyTorch's ``out=`` keyword (see the module docstring); ``key`` names its
    dtype rule ("linalg.inv" for ``torch.linalg.inv``, default ``name``).

    >>> import ember.torch as torch
    >>> double = with_out(lambda x: x * 2, "double")
    >>> o = torch.empty(0)
    >>> double(torch.ones(2), out=o) is o, o.tolist()
    (True, [2.0, 2.0])
    """
    key = key or name
    raw = getattr(fn, "returns_torch_of", None)
    if raw is not None:  # fn is to_torch(raw(...)): one call less on the common path
        def function(*args, out=None, **kwargs):
            if out is None:
                return to_torch(raw(*args, **kwargs))
            return _call(fn, key, name, args, kwargs, out)
    else:
        def function(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            return _call(fn, key, name, args, kwargs, out)

    function.__name__ = getattr(fn, "__name__", name)
    function.__qualname__ = getattr(fn, "__qualname__", name)
    function.__doc__ = getattr(fn, "__doc__", None)
    function.__module__ = getattr(fn, "__module__", None)
    function.__dict__.update(getattr(fn, "__dict__", {}))  # implementation, autocast's marks
    function.out_original = fn
    return function


def install():
    """Give each function of ``OUT_FUNCTIONS`` ``out=``, where ember.torch keeps it: its
    namespace (``ember.torch``, ``.linalg``, ``.special``, ``.fft``) and the registry
    ``ember.torch._tensor.functions``. Returns how many functions it wrapped; a second call
    wraps nothing."""
    from ._tensor import functions
    package = sys.modules[__name__.rpartition(".")[0]]
    count = 0
    for ns, names in OUT_FUNCTIONS.items():
        module = package if ns == "torch" else getattr(package, ns)
        for name in sorted(names):
            fn = module.__dict__.get(name)
            if fn is None or hasattr(fn, "out_original"):
                continue
            key = name if ns == "torch" else f"{ns}.{name}"
            wrapped = with_out(fn, name, key)
            setattr(module, name, wrapped)
            if ns == "torch" and functions.get(name) is fn:
                functions[name] = wrapped
            count += 1
    return count


WRAPPED = install()

"""The complex gate: docs/complex.md enforced over the whole public API.

Every public function of ``ember`` (and ``ember.linalg``, ``ember.fft``, ``ember.vision``,
``ember.nn.functional``), every Tensor method and every operator is called first with float
tensors, over a fixed list of argument patterns; each pattern that succeeds is called again
with each float tensor replaced by a complex tensor of the same shape and real values and a
nonzero imaginary part (and ``dtype=float32`` by ``dtype=complex64``):

- an op docs/complex.md does not list must raise ``KindError`` (an ``EmberError`` at least;
  never a value: a silent value drops or misreads the imaginary part);
- an op it lists must not raise a raw exception nor warn, must succeed for at least one
  pattern, and must not give a real result where its complex result is complex.

A callable for which no pattern succeeds with floats is in ``NO_PATTERN`` with its own call,
so that nothing is skipped silently: the last assertion checks that every enumerated callable
was checked. The values themselves are checked by each family's own complex tests.
"""

import inspect
import re
import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.errors import EmberError, KindError
from oracle import DEVICE_LACKS
from test_fuzz import SKIP as FUZZ_SKIP, _bindable as _fuzz_bindable, _call

F = nn.functional

# Stateful or process-wide functions: test_fuzz.py's SKIP, and the generator's state.
SKIP = FUZZ_SKIP | {"set_rng_state", "get_rng_state", "initial_seed"}

# ---------------------------------------------------------------------------------------------
# The names docs/complex.md lists as taking complex tensors, as ember spells them (functions,
# methods and operators share one name space here; ``linalg.``/``fft.`` prefix those modules).
# Burn's spellings of a listed op (``sum_dim``, ``mul_scalar``, ``equal_elem``) are the op.
# ---------------------------------------------------------------------------------------------
CREATION = {
    "tensor", "from_numpy", "from_data", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "eye", "linspace", "from_dlpack",
}
DATA = {  # tolist/item give Python complex; numpy(), clone, detach, to_device, DLPack, display
    "tolist", "item", "numpy", "__array__", "clone", "detach", "to_device", "contiguous",
    "__dlpack__", "__dlpack_device__", "to_data", "into_data", "try_to_data", "try_into_data",
    "into_scalar", "try_into_scalar", "into_primitive", "try_into_primitive", "from_primitive",
    "from_inner", "load_to_device", "clone_from", "copy_", "fill_", "zero_", "extract",
    "inplace", "__complex__", "__bool__", "__repr__", "__str__", "__format__",
}
CASTS = {  # real to complex and complex to complex; complex to real raises (checked below)
    "cast", "to", "to_data_as", "into_data_as", "to_data_dtype", "into_data_dtype",
    "try_to_data_as", "try_into_data_as", "try_to_data_dtype", "try_into_data_dtype",
    "to_vec_as", "into_vec_as", "try_to_vec_as", "try_into_vec_as",
}
MOVEMENT = {  # every movement, slicing, indexing and segment op
    "reshape", "permute", "flip", "transpose", "t", "movedim", "flatten", "unflatten",
    "squeeze", "unsqueeze", "roll", "repeat_interleave", "cat", "stack", "split",
    "split_with_sizes", "chunk", "unbind", "where", "nonzero", "argwhere", "gather", "scatter",
    "masked_fill", "tril", "triu", "reshape_as", "view", "view_as", "expand", "expand_as",
    "repeat", "repeat_dim", "pad", "pad2d", "narrow", "select", "select_assign", "select_dim",
    "slice", "slice_assign", "slice_dim", "slice_fill", "mask_fill", "mask_where",
    "mask_select", "take", "gather_nd", "scatter_nd", "swap_dims", "squeeze_dim",
    "squeeze_dims", "unsqueeze_dim", "unsqueeze_dims", "unsqueeze_to", "roll_dim", "iter_dim",
    "unfold", "shrink", "__getitem__", "__setitem__", "__iter__", "__len__",
    "fft.fftshift", "fft.ifftshift",
    "F.pad",  # nn.functional's pad is Tensor.pad (constant, reflect, ...): it moves values
}
ARITHMETIC = {
    "add", "sub", "mul", "div", "true_divide", "neg", "pow", "reciprocal", "recip", "square",
    "positive", "add_scalar", "sub_scalar", "mul_scalar", "div_scalar",
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__pow__", "__rpow__", "__neg__", "__pos__",
}
PARTS = {"real", "imag", "conj", "angle", "abs", "__abs__", "complex", "polar"}
FLOAT_MATH = {
    "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sign", "sgn",
    "round",
}
TESTS = {
    "isnan", "isinf", "isfinite", "is_nan", "is_inf", "is_finite", "equal", "eq", "not_equal",
    "ne", "isclose", "is_close", "allclose", "all_close", "equal_elem", "equal_scalar",
    "not_equal_elem", "not_equal_scalar", "__eq__", "__ne__", "logical_and", "logical_or",
    "logical_xor", "logical_not",
}
REDUCTIONS = {
    "sum", "prod", "mean", "cumsum", "cumprod", "count_nonzero", "any", "all", "sum_dim",
    "sum_dims", "sum_dims_squeeze", "prod_dim", "prod_dims", "mean_dim", "mean_dims",
    "any_dim", "all_dim",
}
LINALG = {
    "matmul", "dot", "outer", "inner", "cross", "einsum", "norm", "__matmul__", "__rmatmul__",
    "linalg.cross", "linalg.norm",
    "linalg.det", "linalg.inv", "linalg.solve", "linalg.cholesky", "linalg.qr", "linalg.svd",
    "linalg.svdvals", "linalg.eigh", "linalg.eigvalsh", "linalg.slogdet", "linalg.pinv",
    "linalg.matrix_rank", "linalg.matrix_power", "linalg.vector_norm", "linalg.matrix_norm",
    "linalg.matmul", "linalg.vecdot", "linalg.tensordot", "linalg.outer", "linalg.trace",
    "linalg.diagonal",
}
FFT = {  # every function of ember.fft; the real-input ones refuse a complex input (below)
    "fft.fft", "fft.ifft", "fft.fft2", "fft.ifft2", "fft.fftn", "fft.ifftn", "fft.rfft",
    "fft.irfft", "fft.rfft2", "fft.irfft2", "fft.rfftn", "fft.irfftn", "fft.hfft", "fft.ihfft",
    "fft.hfft2", "fft.ihfft2", "fft.hfftn", "fft.ihfftn", "fft.fftshift", "fft.ifftshift",
}  # fftfreq and rfftfreq make real frequencies: a complex dtype= is refused
COMPLEX_OPS = CREATION | DATA | CASTS | MOVEMENT | ARITHMETIC | PARTS | FLOAT_MATH | TESTS \
    | REDUCTIONS | LINALG | FFT

# Queries of a tensor's metadata and autodiff bookkeeping: they do not read values, so they
# answer for every kind (``set_require_grad(True)`` and ``require_grad`` refuse: checked below).
KIND_FREE = {
    "dim", "dims", "numel", "rank", "is_contiguous", "can_mut", "is_require_grad",
    "is_autodiff", "is_tracked", "is_distributed", "autodiff", "without_autodiff",
    "gradient_checkpointing_strategy", "with_gradient_checkpointing_strategy", "grad_remove",
    "grad_replace", "gradient", "set_require_grad", "new", "promote_types", "result_type",
    "get_default_device", "devices", "get_num_threads", "grad_enabled",
}

# Results that are real for a complex input (all others must be complex when a tensor).
REAL_RESULT = {
    "abs", "__abs__", "angle", "real", "imag", "isnan", "isinf", "isfinite", "is_nan",
    "is_inf", "is_finite", "equal", "eq", "not_equal", "ne", "isclose", "is_close", "allclose",
    "all_close", "equal_elem", "equal_scalar", "not_equal_elem", "not_equal_scalar", "__eq__",
    "__ne__", "count_nonzero", "any", "all", "any_dim", "all_dim", "nonzero", "argwhere",
    "linalg.svdvals", "linalg.eigvalsh", "linalg.matrix_rank", "linalg.vector_norm",
    "linalg.matrix_norm", "fft.irfft", "fft.irfft2", "fft.irfftn", "fft.hfft", "fft.hfft2",
    "fft.hfftn", "fft.fftfreq", "fft.rfftfreq", "__dlpack_device__", "__len__", "__bool__",
    "__repr__", "__str__", "__format__", "__array__", "numpy", "tolist", "contains_nan",
    "logical_and", "logical_or", "logical_xor", "logical_not", "norm", "linalg.norm",
} | CASTS
# Results that may be int indices (``where(cond)``: the indices of the nonzero elements).
INDEX_RESULT = {"where"}
# fft's real-input transforms take real tensors only (as torch.fft.rfft), and
# ``complex(real, imag)`` and ``polar(abs, angle)`` build complex tensors from real ones (as
# torch.complex and torch.polar): a complex input raises KindError, as for an unlisted op.
REAL_INPUT = {"complex", "polar", "fft.rfft", "fft.rfft2", "fft.rfftn", "fft.ihfft",
              "fft.ihfft2", "fft.ihfftn", "fft.fftfreq", "fft.rfftfreq"}

# Operators checked besides the public methods (the fuzz leaves dunders out).
DUNDERS = [
    "__abs__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
    "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__neg__", "__pos__", "__eq__",
    "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__floordiv__", "__rfloordiv__",
    "__mod__", "__rmod__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
    "__invert__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__matmul__",
    "__rmatmul__", "__getitem__", "__setitem__", "__bool__", "__float__", "__int__",
    "__index__", "__complex__", "__array__", "__len__", "__iter__", "__dlpack__",
    "__dlpack_device__", "__repr__", "__str__", "__format__",
]


# ---------------------------------------------------------------------------------------------
# Inputs and argument patterns
# ---------------------------------------------------------------------------------------------
SHAPES = [(2, 3), (), (4,), (3, 3)]
# Tried only when no shape above works with floats: images and batches (conv, pooling, vision).
FALLBACK_SHAPE = (1, 3, 4, 4)


def _values(shape):
    """Fixed real parts (in (0.1, 0.9), a positive definite matrix for (3, 3)) and nonzero
    imaginary parts (Hermitian for (3, 3): the complex matrix is positive definite too)."""
    n = int(np.prod(shape)) if shape else 1
    re = (0.1 + 0.8 * ((np.arange(n) * 0.37) % 1.0)).reshape(shape)
    im = np.full(shape, 0.25)
    if shape == (3, 3):
        re = re @ re.T + 3 * np.eye(3)
        im = np.triu(np.full(shape, 0.25), 1)
        im = im - im.T
    return re, im


class Ph:
    """A placeholder in an argument pattern."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


X, IDX, MASK, DT = Ph("X"), Ph("I"), Ph("M"), Ph("DT")

PATTERNS = [
    ((X,), {}), ((X, X), {}), ((X, 1), {}), ((X, 0), {}), ((X, -1), {}), ((X, 2), {}),
    ((X, 0.5), {}), ((X, [0]), {}), ((X, (0,)), {}), ((X, X, X), {}), ((X,), {"dim": 0}),
    ((X,), {"dim": -1}), ((X, 0, IDX), {}), ((X, IDX), {}), ((X, MASK), {}),
    ((X, MASK, 0.5), {}), ((MASK, X, X), {}), (([X, X],), {}), (([X, X], 0), {}),
    ((X, 0, 1), {}), ((X, 1, 0), {}), ((X, (1, 1)), {}), ((X, 0, IDX, X), {}),
    ((X, X, 0.5), {}), ((X, DT), {}), ((X,), {"dtype": DT}), ((X, "cpu"), {}),
    ((X, 0, 0, 1), {}), ((X, [(0, 1)]), {}), ((X, "ij,ij->i"), {}), ((X, (1, 2)), {}),
    ((X, [1]), {}), ((X, 1, 1), {}), ((X, X, 1), {}), ((X, slice(0, 1)), {}),
    ((X, [slice(0, 1)]), {}), ((X, 0, X), {}), ((X, (0, 0), 1), {}),
    (("ij,ij->i", X, X), {}), (("i,i->", X, X), {}),
]
# Creation and dtype-taking calls without a tensor: dtype=float32 becomes dtype=complex64.
DTYPE_PATTERNS = [
    (((2, 3),), {"dtype": DT}), ((2, 3), {"dtype": DT}), ((3,), {"dtype": DT}),
    ((0, 1, 5), {"dtype": DT}), (((2, 3), 1.5), {"dtype": DT}), ((0.0, 1.0, 5), {"dtype": DT}),
    (([0.5, 1.5],), {"dtype": DT}), ((0, 3), {"dtype": DT}), ((0, 6, 2), {"dtype": DT}),
    ((2, 3, 1.5), {"dtype": DT}),
]


def _inputs(shape, complex_):
    re, im = _values(shape)
    if complex_:
        x = ember.from_numpy(np.asarray(re + 1j * im, dtype=np.complex64))
    else:
        x = ember.from_numpy(np.asarray(re, dtype=np.float32))
    return {
        "X": x,
        "I": ember.from_numpy(np.zeros(shape, dtype=np.int64)),
        "M": ember.from_numpy(np.asarray((np.arange(int(np.prod(shape))) % 2 == 0)
                                         .reshape(shape))),
        "DT": ember.complex64 if complex_ else ember.float32,
    }


def _fill(value, inputs):
    if isinstance(value, Ph):
        return inputs[value.name]
    if isinstance(value, list):
        return [_fill(v, inputs) for v in value]
    if isinstance(value, tuple):
        return tuple(_fill(v, inputs) for v in value)
    if isinstance(value, dict):
        return {k: _fill(v, inputs) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------------------------
def _module_functions(module, prefix):
    out = []
    names = getattr(module, "__all__", None) or dir(module)
    for name in sorted(names):
        obj = getattr(module, name, None)
        if name.startswith("_") or name in SKIP or obj is None or inspect.isclass(obj) \
                or inspect.ismodule(obj) or not callable(obj):
            continue
        out.append((prefix + name, obj, False))
    return out


def _targets():
    """(label, callable or method name, is_method) of the public API, as test_fuzz.py."""
    out = _module_functions(ember, "")
    for name in sorted(dir(F)):
        obj = getattr(F, name)
        if not name.startswith("_") and name not in SKIP and inspect.isfunction(obj) \
                and obj.__module__ == "ember.nn.functional":
            out.append(("F." + name, obj, False))
    for mod in ("linalg", "fft", "vision"):
        module = getattr(ember, mod, None)
        if module is not None:
            out.extend(_module_functions(module, mod + "."))
    for name in sorted(dir(ember.Tensor)):
        if (name.startswith("_") and name not in DUNDERS) or name in SKIP:
            continue
        attr = inspect.getattr_static(ember.Tensor, name, None)
        if attr is None or isinstance(attr, property) or not callable(getattr(ember.Tensor, name)):
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            out.append(("Tensor." + name, getattr(ember.Tensor, name), False))
        else:
            out.append(("Tensor." + name, name, True))
    return out


def _op_name(label):
    """The name COMPLEX_OPS uses: ``Tensor.sum`` and ``sum`` are one op; module prefixes of
    linalg and fft stay, vision's and nn.functional's go (none of them takes complex)."""
    for prefix in ("Tensor.", "F.", "vision."):
        if label.startswith(prefix):
            return label[len(prefix):] if prefix == "Tensor." else label
    return label


def _bindable(target, is_method, args, kwargs):
    return _fuzz_bindable(getattr(ember.Tensor, target) if is_method else target, args, kwargs)


def _tensors_of(result):
    if isinstance(result, ember.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _tensors_of(r)]
    return []


def _run(target, is_method, args, kwargs):
    """(outcome, value): outcome is "ok", "kind", "ember" (another EmberError), "raw" or "warn"."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = _call(target, is_method, args, kwargs)
            if inspect.isgenerator(value) or type(value).__name__ in ("generator", "map"):
                value = list(value)
            # an operator's NotImplemented (Python then tries the other operand) is no result
            outcome = "na" if value is NotImplemented else "ok"
        except KindError as e:
            outcome, value = "kind", e
        except EmberError as e:
            outcome, value = "ember", e
        except Exception as e:  # noqa: BLE001  (the point: nothing else may escape)
            outcome, value = "raw", e
    if caught and outcome != "raw":
        return "warn", caught[0].message
    return outcome, value


def _float_patterns(target, is_method):
    """(shape, args pattern, kwargs pattern) that succeed with float tensors: at most two per
    shape, and at most two of the tensor-less dtype patterns."""
    found = []
    for shape in SHAPES + [FALLBACK_SHAPE]:
        if shape is FALLBACK_SHAPE and found:
            break
        inputs = _inputs(shape, False)
        hits = 0
        for args_p, kwargs_p in PATTERNS:
            if is_method and args_p[0] is not X:
                continue
            args, kwargs = _fill(args_p, inputs), _fill(kwargs_p, inputs)
            if not _bindable(target, is_method, args, kwargs):
                continue
            outcome, _ = _run(target, is_method, args, kwargs)
            if outcome == "ok":
                found.append((shape, args_p, kwargs_p))
                hits += 1
                if hits == 2:
                    break
    if not is_method:
        inputs = _inputs((2, 3), False)
        hits = 0
        for args_p, kwargs_p in DTYPE_PATTERNS:
            args, kwargs = _fill(args_p, inputs), _fill(kwargs_p, inputs)
            if not _bindable(target, is_method, args, kwargs):
                continue
            if _run(target, is_method, args, kwargs)[0] == "ok":
                found.append(((2, 3), args_p, kwargs_p))
                hits += 1
                if hits == 2:
                    break
    return found


# ---------------------------------------------------------------------------------------------
# Callables no pattern reaches with floats: each with its own complex call and the outcome
# docs/complex.md asks of it ("kind": KindError; "ok": a result). ``c`` is a complex (2, 3)
# tensor, ``c33`` a complex (3, 3) one, ``c4`` a complex (4,) one.
# ---------------------------------------------------------------------------------------------
def _c(shape=(2, 3)):
    return _inputs(shape, True)["X"]


def _r(shape=(2, 3)):
    return _inputs(shape, False)["X"]


def _quant(name):
    def call():
        scheme = ember.QuantScheme()
        if name == "quantize":
            return ember.quantize(_c(), scheme, ember.QParams([0.1]))
        return ember.quantize_dynamic(_c(), scheme)
    return call


# op name -> (what docs/complex.md asks: "kind" a KindError, "error" an EmberError, "ok" a
# result, a complex one unless REAL_RESULT names the op; the call, with complex tensors)
NO_PATTERN = {
    "arange": ("kind", lambda: ember.arange(3, dtype=ember.complex64)),
    "arange_step": ("kind", lambda: ember.arange_step((0, 6), 2, dtype=ember.complex64)),
    "from_numpy": ("ok", lambda: ember.from_numpy(np.array([1 + 2j, 3j], np.complex64))),
    "from_primitive": ("ok", lambda: ember.Tensor.from_primitive(
        np.array([1 + 2j, 3j], np.complex64))),
    "unflatten": ("ok", lambda: ember.unflatten(_c(), 1, (3, 1))),
    "imag": ("ok", lambda: ember.imag(_c())),             # of a real tensor it raises (PyTorch)
    "Tensor.imag": ("ok", lambda: _c().imag()),
    "mask_where": ("ok", lambda: _c().mask_where(_inputs((2, 3), False)["M"], _c())),
    "inplace": ("ok", lambda: _c().inplace(lambda t: t)),
    "set_require_grad": ("kind", lambda: _c().set_require_grad(True)),
    "backward": ("kind", lambda: _c(()).backward()),
    "__index__": ("kind", lambda: _c(()).__index__()),
    "__invert__": ("kind", lambda: ~_c()),
    "one_hot": ("kind", lambda: ember.one_hot(_c((4,)), 3)),
    "one_hot_fill": ("kind", lambda: _c((4,)).one_hot_fill(3)),
    "F.one_hot": ("kind", lambda: F.one_hot(_c((4,)), 3)),
    "quantize": ("kind", _quant("quantize")),
    "quantize_dynamic": ("kind", _quant("quantize_dynamic")),
    "grid_sample_2d": ("kind", lambda: ember.grid_sample_2d(
        _c((1, 1, 3, 3)), ember.zeros(1, 2, 2, 2))),
    "F.batch_norm": ("kind", lambda: F.batch_norm(_c(FALLBACK_SHAPE), ember.zeros(3),
                                                  ember.ones(3))),
    "F.embedding": ("kind", lambda: F.embedding(ember.tensor([0, 1]), _c())),
    "F.layer_norm": ("kind", lambda: F.layer_norm(_c(), (3,))),
    "F.max_unpool2d": ("kind", lambda: F.max_unpool2d(
        _c((1, 1, 2, 2)), ember.zeros(1, 1, 2, 2, dtype="int64"), 2)),
    "F.nll_loss": ("kind", lambda: F.nll_loss(_c(), ember.tensor([0, 1]))),
    "connected_components": ("kind", lambda: _c((4, 4)).connected_components()),
    "connected_components_with_stats": ("kind",
                                        lambda: _c((4, 4)).connected_components_with_stats()),
    "vision.connected_components": ("kind", lambda: ember.vision.connected_components(
        _c((4, 4)))),
    "vision.connected_components_with_stats": (
        "kind", lambda: ember.vision.connected_components_with_stats(_c((4, 4)))),
    "dilate": ("kind", lambda: _c((4, 4, 1)).dilate(ember.ones(3, 3))),
    "erode": ("kind", lambda: _c((4, 4, 1)).erode(ember.ones(3, 3))),
    "vision.dilate": ("kind", lambda: ember.vision.dilate(_c((4, 4, 1)), ember.ones(3, 3))),
    "vision.erode": ("kind", lambda: ember.vision.erode(_c((4, 4, 1)), ember.ones(3, 3))),
    "gray2rgb": ("kind", lambda: _c((1, 1, 4, 4)).gray2rgb()),
    "vision.gray2rgb": ("kind", lambda: ember.vision.gray2rgb(_c((1, 1, 4, 4)))),
    "nms": ("kind", lambda: _c((4, 4)).nms(_r((4,)))),
    "compile": ("ok", lambda: ember.compile(lambda t: t * 2)(_c())),
    "vision.nms": ("kind", lambda: ember.vision.nms(_r((4, 4)), _c((4,)))),
}
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
              "bitwise_right_shift", "bool_and", "bool_or", "bool_xor"):
    NO_PATTERN[_name] = ("kind", lambda n=_name: getattr(_c(), n)(_c()))
    if _name.startswith("bitwise"):
        NO_PATTERN[_name + "_scalar"] = ("kind", lambda n=_name: getattr(_c(), n + "_scalar")(1))
for _name in ("bitwise_not", "bool_not"):
    NO_PATTERN[_name] = ("kind", lambda n=_name: getattr(_c(), n)())
# the bitwise operators (int and bool tensors only), each with a complex operand
for _name in ("and", "or", "xor", "lshift", "rshift"):
    NO_PATTERN[f"__{_name}__"] = ("kind", lambda n=_name: getattr(_c(), f"__{n}__")(_c()))
    NO_PATTERN[f"__r{_name}__"] = ("kind", lambda n=_name: getattr(_c(), f"__r{n}__")(_c()))

# a cast to a dtype the device lacks has no float pattern there (its float call is refused too)
if "float16" in DEVICE_LACKS:
    NO_PATTERN["half"] = ("kind", lambda: _c().half())

# Callables that take no tensor and no dtype: a complex tensor cannot reach them.
NO_TENSOR = {"cartesian_grid", "diag_mask", "tril_mask", "triu_mask"}


def _check_refuses(label, outcome, value, call):
    if outcome == "kind":
        return None
    if outcome == "ember":
        return f"{label}{call}: raised {type(value).__name__}, not KindError: {str(value)[:120]}"
    if outcome == "ok":
        kinds = [t.dtype.name for t in _tensors_of(value)]
        return f"{label}{call}: returned {type(value).__name__} {kinds or ''} (silent value)"
    if outcome == "warn":
        return f"{label}{call}: warned {value!r}"
    return f"{label}{call}: raised raw {type(value).__name__}: {str(value)[:120]}"


def _check_takes(label, name, outcome, value, call):
    if outcome == "raw":
        return f"{label}{call}: raised raw {type(value).__name__}: {str(value)[:120]}"
    if outcome == "warn":
        return f"{label}{call}: warned {str(value)[:120]}"
    if outcome != "ok" or name in REAL_RESULT:
        return None  # a refusal is counted: at least one pattern must succeed
    tensors = _tensors_of(value)
    if tensors and not any(t.dtype.kind == "complex" for t in tensors) and not (
            name in INDEX_RESULT and all(t.dtype.kind == "int" for t in tensors)):
        return f"{label}{call}: gave a real result {[t.dtype.name for t in tensors]} (silent)"
    if isinstance(value, float):
        return f"{label}{call}: gave a Python float {value!r} (silent)"
    return None


def _show(args_p, kwargs_p, shape):
    parts = [repr(a) for a in args_p] + [f"{k}={v!r}" for k, v in kwargs_p.items()]
    return f"({', '.join(parts)}) shape {shape}"


def _gate():
    """(failures, refusals that are an EmberError but not KindError, uncovered callables)."""
    failures, other_ember, uncovered = [], [], []
    for label, target, is_method in _targets():
        name = _op_name(label)
        if name in KIND_FREE or name in NO_TENSOR:
            continue
        found = _float_patterns(target, is_method)
        if not found:
            if name not in NO_PATTERN:
                uncovered.append(label)
            continue
        takes = (name in COMPLEX_OPS or name.startswith("fft.")) and name not in REAL_INPUT
        successes, refusal = 0, None
        for shape, args_p, kwargs_p in found:
            inputs = _inputs(shape, True)
            args, kwargs = _fill(args_p, inputs), _fill(kwargs_p, inputs)
            outcome, value = _run(target, is_method, args, kwargs)
            call = _show(args_p, kwargs_p, shape)
            if takes:
                successes += outcome == "ok"
                if outcome in ("kind", "ember") and refusal is None:
                    refusal = f"{call}: {str(value)[:100]}"
                problem = _check_takes(label, name, outcome, value, call)
            else:
                problem = _check_refuses(label, outcome, value, call)
                if problem and outcome == "ember":
                    other_ember.append(problem)
                    problem = None
            if problem:
                failures.append(problem)
        if takes and not successes:
            failures.append(f"{label}: listed in docs/complex.md, but refuses complex tensors "
                            f"in every pattern that works with floats: {refusal}")
    for key, (want, call) in NO_PATTERN.items():
        if key.startswith(("fft.", "linalg.", "vision.")) and \
                getattr(ember, key.partition(".")[0], None) is None:
            continue
        outcome, value = _run(call, False, (), {})
        where = "(explicit call)"
        if want == "ok":
            problem = _check_takes(key, key.rpartition(".")[2] if key.startswith("Tensor.")
                                   else key, outcome, value, where)
            if outcome in ("kind", "ember"):
                problem = f"{key}{where}: refused: {value}"
        elif want == "error" and outcome in ("kind", "ember"):
            problem = None
        else:
            problem = _check_refuses(key, outcome, value, where)
            if problem and outcome == "ember":
                other_ember.append(problem)
                problem = None
        if problem:
            failures.append(problem)
    return failures, other_ember, uncovered


def test_complex_gate_whole_api(capsys):
    failures, other_ember, uncovered = _gate()
    with capsys.disabled():
        if other_ember:
            print(f"\ncomplex gate: {len(other_ember)} refusals are an EmberError but not "
                  "KindError:\n  " + "\n  ".join(other_ember))
    assert not uncovered, ("callables no float pattern reaches and NO_PATTERN does not list: "
                           + ", ".join(uncovered))
    assert not failures, f"{len(failures)} gate failures:\n" + _by_op(failures)


def _by_op(lines):
    """One line per callable: how many of its calls failed, and the first one."""
    seen = {}
    for line in lines:
        key = re.split(r"[(:]", line, maxsplit=1)[0]
        count, first = seen.get(key, (0, line))
        seen[key] = (count + 1, first)
    return "\n".join(f"[{count}] {first}" for count, first in seen.values())


# -- creation with dtype=complex64 (docs/complex.md, "Creation and data") ---------------------

def _float23():
    return _inputs((2, 3), False)["X"]


CREATES_COMPLEX = [  # (label, call): each must give a complex tensor, without a warning
    ("zeros", lambda dt: ember.zeros(2, 3, dtype=dt)),
    ("ones", lambda dt: ember.ones(2, 3, dtype=dt)),
    ("full", lambda dt: ember.full((2, 3), 1.5, dtype=dt)),
    ("full complex fill", lambda dt: ember.full((2, 3), 1 + 2j, dtype=dt)),
    ("empty", lambda dt: ember.empty(2, 3, dtype=dt)),
    ("zeros_like", lambda dt: ember.zeros_like(_float23(), dtype=dt)),
    ("ones_like", lambda dt: ember.ones_like(_float23(), dtype=dt)),
    ("full_like", lambda dt: ember.full_like(_float23(), 2j, dtype=dt)),
    ("empty_like", lambda dt: ember.empty_like(_float23(), dtype=dt)),
    ("eye", lambda dt: ember.eye(3, dtype=dt)),
    ("linspace", lambda dt: ember.linspace(0, 1, 5, dtype=dt)),
    ("tensor", lambda dt: ember.tensor([1.0, 2.0], dtype=dt)),
    ("tensor of complex values", lambda dt: ember.tensor([1 + 2j, -1j], dtype=dt)),
]
REFUSES_COMPLEX = [  # (label, call): each must raise KindError
    ("arange", lambda dt: ember.arange(3, dtype=dt)),
    ("arange_step", lambda dt: ember.arange_step((0, 6), 2, dtype=dt)),
    ("rand", lambda dt: ember.rand(2, 3, dtype=dt)),
    ("randn", lambda dt: ember.randn(2, 3, dtype=dt)),
    ("randint", lambda dt: ember.randint(0, 5, (2, 3), dtype=dt)),
    ("randperm", lambda dt: ember.randperm(4, dtype=dt)),
    ("random", lambda dt: ember.random((2, 3), dtype=dt)),
    ("random_like", lambda dt: _float23().random_like(dtype=dt)),
    ("zeros requires_grad", lambda dt: ember.zeros(2, dtype=dt, requires_grad=True)),
    ("rand_like of complex", lambda dt: ember.zeros(2, dtype=dt).random_like()),
]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("label,call", CREATES_COMPLEX, ids=[c[0] for c in CREATES_COMPLEX])
def test_creation_gives_complex(label, call, dtype):
    dt = getattr(ember, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = call(dt)
    assert t.dtype is dt
    if label in ("ones", "ones_like"):
        assert t.tolist()[0][0] == 1 + 0j
    if label == "full complex fill":
        assert t.tolist()[1][2] == 1 + 2j
    if label == "full_like":
        assert t.tolist()[0][0] == 2j


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("label,call", REFUSES_COMPLEX, ids=[c[0] for c in REFUSES_COMPLEX])
def test_creation_refuses_complex(label, call, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KindError, match="complex"):
            call(getattr(ember, dtype))


def test_require_grad_refuses_complex():
    with pytest.raises(KindError, match="require_grad"):
        ember.ones(2, dtype=ember.complex64).require_grad()
    with pytest.raises(KindError):
        ember.ones(2, dtype=ember.complex128).set_require_grad(True)
    z = ember.ones(2, dtype=ember.complex64)
    assert z.set_require_grad(False).is_require_grad() is False


# The names docs/complex.md spells out (COMPLEX_OPS adds Burn's spellings and the operators).
DOC_NAMES = {
    "tensor", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
    "full_like", "empty_like", "eye", "linspace", "tolist", "item", "numpy", "clone", "detach",
    "to_device", "contiguous", "reshape", "permute", "flip", "cat", "stack", "split", "gather",
    "select", "where", "masked_fill", "scatter", "tril", "triu", "repeat", "roll", "pad",
    "add", "sub", "mul", "div", "neg", "pow", "reciprocal", "square", "real", "imag", "conj",
    "angle", "abs", "complex", "polar", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
    "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh",
    "acosh", "atanh", "sign", "sgn", "round", "isnan", "isinf", "isfinite", "equal", "eq",
    "not_equal", "ne", "isclose", "allclose", "all_close", "sum", "prod", "mean", "cumsum",
    "cumprod", "count_nonzero", "any", "all", "matmul", "dot", "inner", "outer", "cross",
    "einsum", "norm", "linalg.vecdot", "linalg.det", "linalg.inv", "linalg.solve",
    "linalg.cholesky", "linalg.qr", "linalg.svd", "linalg.svdvals", "linalg.eigh",
    "linalg.eigvalsh", "linalg.slogdet", "linalg.pinv", "linalg.matrix_rank",
    "linalg.matrix_power", "linalg.vector_norm", "linalg.matrix_norm",
} | FFT


def test_complex_ops_exist():
    """Every name docs/complex.md spells out is a public function, method or operator of
    ember, and COMPLEX_OPS has it (the families add them; this lists the ones missing)."""
    assert DOC_NAMES <= COMPLEX_OPS, DOC_NAMES - COMPLEX_OPS
    missing = []
    for name in sorted(DOC_NAMES):
        module, dot, short = name.rpartition(".")
        if dot:
            where = F if module == "F" else getattr(ember, module, None)
            if where is None or not hasattr(where, short):
                missing.append(name)
        elif not (hasattr(ember, name) or hasattr(ember.Tensor, name)):
            missing.append(name)
    assert not missing, "docs/complex.md names missing from ember: " + ", ".join(missing)


# -- casts (docs/complex.md, "Casts") ----------------------------------------------------------

REAL_DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool_"]


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("how", ["cast", "to", "to_dtype_kw"])
def test_complex_to_real_cast_refused(how, dtype):
    z = _inputs((2, 3), True)["X"]
    dt = getattr(ember, dtype)
    call = {"cast": lambda: z.cast(dt), "to": lambda: z.to(dt),
            "to_dtype_kw": lambda: z.to(dtype=dt)}[how]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KindError, match="complex"):
            call()
    assert z.dtype is ember.complex64


@pytest.mark.parametrize("method", ["float", "double", "half", "int", "long", "short", "bool"])
def test_complex_to_real_methods_refused(method):
    z = _inputs((4,), True)["X"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KindError, match="complex"):
            getattr(z, method)()


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "bool_", "complex64",
                                 "complex128"])
@pytest.mark.parametrize("dst", ["complex64", "complex128"])
def test_cast_to_complex_keeps_values(src, dst):
    re, im = _values((2, 3))
    values = re + 1j * im if src.startswith("complex") else (re > 0.5 if src == "bool_" else re)
    arr = np.asarray(values, dtype={"bool_": np.bool_}.get(src, src))
    t = ember.from_numpy(arr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = t.cast(getattr(ember, dst))
    assert out.dtype is getattr(ember, dst)
    np.testing.assert_allclose(out.numpy(), arr.astype(dst), rtol=1e-6)


def test_docs_complex_md():
    import doctest
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                        "complex.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4
    assert result.failed == 0

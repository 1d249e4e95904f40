"""Tests of ember/dtypes.py: kinds, names, promotion against PyTorch.

PyTorch 2.13 refuses to promote uint16, uint32 and uint64 with any other dtype (bool included).
For those pairs ember follows NumPy (``numpy.promote_types``), except that uint64 with a signed
int raises KindError, as PyTorch does (NumPy gives float64, which would change the kind; no int
dtype holds both ranges). docs/math.md states the rule.
"""

import pickle

import ml_dtypes
import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, KindError, dtypes
from oracle import TORCH_DTYPES, on_device

NAMES = list(TORCH_DTYPES)
KIND = {"float64": "float", "float32": "float", "float16": "float", "bfloat16": "float",
        "int64": "int", "int32": "int", "int16": "int", "int8": "int", "uint8": "int",
        "uint16": "int", "uint32": "int", "uint64": "int", "bool": "bool"}


def dt(name):
    return dtypes.as_dtype(name)


@pytest.mark.parametrize("name", NAMES)
def test_dtype_attributes(name):
    d = dt(name)
    td = TORCH_DTYPES[name]
    assert d.name == name and str(d) == name and repr(d) == f"ember.{name}"
    assert d.kind == KIND[name]
    assert d.is_floating_point == td.is_floating_point
    assert d.itemsize == td.itemsize
    assert d.is_signed == td.is_signed
    assert pickle.loads(pickle.dumps(d)) is d
    assert getattr(ember, "bool_" if name == "bool" else name) is d


def test_module_names():
    assert ember.bool is ember.bool_
    assert dtypes.KINDS == ("bool", "int", "float", "complex")
    assert dtypes.default_float is ember.float32 and dtypes.default_int is ember.int64
    assert dtypes.default_of_kind("float") is ember.float32
    assert dtypes.default_of_kind("int") is ember.int64
    assert dtypes.default_of_kind("bool") is ember.bool_
    assert ember.Device("cpu").backend.native_dtype(ember.bfloat16) == np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("value, name", [
    ("f64", "float64"), ("float", "float32"), ("double", "float64"), ("half", "float16"),
    ("bf16", "bfloat16"), ("int", "int64"), ("long", "int64"), ("i8", "int8"), ("u16", "uint16"),
    ("bool_", "bool"), ("bool", "bool"), (float, "float32"), (int, "int64"), (bool, "bool"),
    (np.float64, "float64"), (np.dtype("int16"), "int16"), ("uint32", "uint32"),
    (np.dtype(ml_dtypes.bfloat16), "bfloat16"), (ember.uint64, "uint64"),
])
def test_as_dtype(value, name):
    assert dtypes.as_dtype(value) is dt(name)


@pytest.mark.parametrize("value", ["float8", "complex32", np.complex256, object, 3, "",
                                   torch.complex32, "F32"])
def test_as_dtype_errors(value):
    with pytest.raises(InvalidParameterError, match=r"dtype: .* is not an ember dtype; expected one of float64, float32"):
        dtypes.as_dtype(value)
    with pytest.raises(InvalidParameterError, match=r"^cast_to: "):
        dtypes.as_dtype(value, param="cast_to")


def test_dtype_of_a_backend_array():
    host = ember.Device("cpu").backend
    assert host.dtype_of(np.zeros(1, np.int8)) is ember.int8
    with pytest.raises(KindError, match="dtype <U1 has no ember kind"):
        host.dtype_of(np.array(["a"]))


def test_torch_dtypes_name_ember_dtypes():
    ember.Device("torch:cpu").backend  # noqa: B018 - loads the torch backend
    assert dtypes.as_dtype(torch.float32) is ember.float32
    assert dtypes.as_dtype(torch.uint16) is ember.uint16


def _torch_promote(a, b):
    try:
        return str(torch.promote_types(TORCH_DTYPES[a], TORCH_DTYPES[b])).replace("torch.", "")
    except RuntimeError:
        return None


SIGNED = ("int8", "int16", "int32", "int64")


def _numpy_rule(a, b):
    native = ember.Device("cpu").backend.native_dtype
    return np.promote_types(native(dt(a)), native(dt(b))).name


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_all_pairs(a):
    for b in NAMES:
        if {a, b} & {"uint64"} and {a, b} & set(SIGNED):
            continue   # refused: test_uint64_with_a_signed_int_is_refused
        got = dtypes.promote_types(dt(a), dt(b)).name
        expected = _torch_promote(a, b)
        if expected is None:  # torch refuses the pair (uint16/32/64): NumPy's rule, see above
            assert got == _numpy_rule(a, b), (a, b)
        else:
            assert got == expected, (a, b)
        assert dtypes.promote_types(dt(b), dt(a)).name == got
        assert ember.promote_types(dt(a), dt(b)) is dt(got)


def _operand(kind, name_or_value):
    """An ember operand and its torch twin: a tensor with dims, a 0-d tensor or a Python scalar."""
    if kind == "scalar":
        return name_or_value, name_or_value
    shape = (2,) if kind == "dim" else ()
    e = ember.zeros(shape, dtype=name_or_value)
    t = torch.zeros(shape, dtype=TORCH_DTYPES[name_or_value])
    return e, t


OPERANDS = [("dim", n) for n in on_device(NAMES)] + [("zero", n) for n in on_device(NAMES)] + \
    [("scalar", v) for v in (True, 2, 2.5)]


@pytest.mark.parametrize("first", OPERANDS, ids=lambda o: f"{o[0]}-{o[1]}")
def test_result_type_vs_torch(first):
    e1, t1 = _operand(*first)
    for second in OPERANDS:
        e2, t2 = _operand(*second)
        try:
            expected = str(torch.result_type(t1, t2)).replace("torch.", "")
        except RuntimeError:  # uint16/32/64 pairs torch refuses
            continue
        assert dtypes.result_type(e1, e2).name == expected, (first, second)


@pytest.mark.parametrize("signed", SIGNED)
def test_uint64_with_a_signed_int_is_refused(signed):
    # NumPy promotes the pair to float64, a kind change; PyTorch refuses it: so does ember
    assert np.promote_types(np.uint64, signed) == np.float64
    with pytest.raises(RuntimeError):
        torch.promote_types(torch.uint64, TORCH_DTYPES[signed])
    for a, b in ((dt("uint64"), dt(signed)), (dt(signed), dt("uint64"))):
        with pytest.raises(KindError, match=f"({a.name} and {b.name}).*no common dtype") as err:
            ember.promote_types(a, b)
        assert "uint64" in str(err.value) and signed in str(err.value)
    u = ember.tensor([2**64 - 1], dtype="uint64")
    s = ember.tensor([0], dtype=signed)
    for operands in ((u, s), (s, u), (u[0], s[0])):
        with pytest.raises(KindError, match=f"uint64.*{signed}|{signed}.*uint64"):
            dtypes.result_type(*operands)
    # a 0-d tensor or a Python int meets a tensor with dims as a weak operand: no refusal
    assert dtypes.result_type(u, s[0]) is ember.uint64
    assert dtypes.result_type(u, 1) is ember.uint64
    assert dtypes.result_type(s, u[0]) is dt(signed)
    # the other pairs of uint64 keep their rules: unsigned and bool widen, floats win
    for other, want in (("uint8", "uint64"), ("uint32", "uint64"), ("bool", "uint64"),
                        ("float16", "float16"), ("float64", "float64")):
        assert ember.promote_types(dt("uint64"), dt(other)).name == want


def test_result_type_more_operands_and_errors():
    a = ember.zeros(2, dtype="int8")
    b = ember.zeros((), dtype="float64")
    assert dtypes.result_type(a, b, 1) is ember.float64
    assert dtypes.result_type(a, ember.zeros(2, dtype="int32"), 2.5) is ember.float32
    assert dtypes.result_type(a, np.float32(2.5)) is ember.float32
    assert dtypes.result_type(ember.zeros(2, dtype="bool"), np.int64(3)) is ember.int64
    assert ember.result_type(3) is ember.int64
    with pytest.raises(KindError, match="str value 'a' is not a tensor or a number"):
        dtypes.result_type(a, "a")
    with pytest.raises(KindError, match="NoneType value None is not a tensor or a number"):
        dtypes.result_type(None)


@pytest.mark.half_precision
def test_pytorch_dtype_aliases():
    import builtins
    pairs = {"float": torch.float, "double": torch.double, "half": torch.half, "int": torch.int,
             "long": torch.long, "short": torch.short, "bool": torch.bool}
    for name, tdt in pairs.items():
        dt = getattr(ember, name)
        assert isinstance(dt, ember.DType) and dt.name == str(tdt).replace("torch.", "")
        t = ember.tensor([1, 0, 2], dtype=dt)
        assert t.dtype is dt and t.tolist() == torch.tensor([1, 0, 2], dtype=tdt).tolist()
    x, xt = ember.tensor([1.5, -2.5]), torch.tensor([1.5, -2.5])
    for name in ("long", "double", "half", "short", "float", "bool"):
        got, want = getattr(x, name)(), getattr(xt, name)()
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
        assert got.tolist() == want.tolist()
    assert x.int().dtype is ember.int64          # Burn's int(): the default int dtype
    # ember's own modules still see Python's builtins
    assert ember.dtypes.as_dtype(builtins.float) is ember.float32
    assert ember.tensor([1.5]).item() == 1.5 and isinstance(ember.tensor([1.5]).item(), float)


@pytest.mark.parametrize("value", [ember.tensor(1), ember.tensor([1.0, 2.0]), {"a": 1}, (int, -1),
                                   2 ** 70, [("a", "f4")]])
def test_as_dtype_refuses_tensors_and_odd_values(value):
    with pytest.raises(InvalidParameterError, match=r"dtype: .* is not an ember dtype"):
        dtypes.as_dtype(value)


DTYPE_TAKERS = {
    "zeros": lambda d: ember.zeros(2, dtype=d),
    "ones": lambda d: ember.ones(2, dtype=d),
    "full": lambda d: ember.full((2,), 1, dtype=d),
    "empty": lambda d: ember.empty(2, dtype=d),
    "arange": lambda d: ember.arange(3, dtype=d),
    "tensor": lambda d: ember.tensor([1, 2], dtype=d),
    "Tensor": lambda d: ember.Tensor([1, 2], dtype=d),
    "rand": lambda d: ember.rand(2, dtype=d),
    "randint": lambda d: ember.randint(0, 3, (2,), dtype=d),
    "cast": lambda d: ember.ones(2).cast(d),
    "zeros_like": lambda d: ember.ones(2).zeros_like(dtype=d),
}


@pytest.mark.parametrize("name", list(DTYPE_TAKERS))
def test_a_tensor_as_dtype_raises_the_typed_error(name):
    with pytest.raises(InvalidParameterError, match=r"Tensor\(1, shape=\(\), dtype=int64\) is not "
                                                    r"an ember dtype"):
        DTYPE_TAKERS[name](ember.tensor(1))


@pytest.mark.parametrize("a, b", [(2, 0.5), (ember.float32, None), ("x", ember.int8),
                                  (ember.tensor(1), ember.int8)])
def test_promote_types_refuses_what_is_not_a_dtype(a, b):
    with pytest.raises(InvalidParameterError, match=r"promote_types: (a|b) .* is not an ember dtype"):
        ember.promote_types(a, b)


def test_promote_types_takes_dtype_names():
    assert ember.promote_types("int8", ember.uint8) is ember.int16
    assert ember.promote_types("float16", "bfloat16") is ember.float32


_COMPLEX = ["complex64", "complex128"]


@pytest.mark.parametrize("other", NAMES + _COMPLEX)
@pytest.mark.parametrize("name", _COMPLEX)
def test_complex_promotion_matches_torch(name, other):
    for dims_a, dims_b in [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())]:
        a = ember.zeros(dims_a, dtype=name)
        b = ember.zeros(dims_b, dtype=other)
        if other in ("uint16", "uint32", "uint64"):  # torch refuses; ember: the complex kind wins
            assert dtypes.result_type(a, b).name == dtypes.result_type(b, a).name == name
            continue
        ta = torch.zeros(dims_a, dtype=getattr(torch, name))
        tb = torch.zeros(dims_b, dtype=getattr(torch, other))
        want = str(torch.result_type(ta, tb)).replace("torch.", "")
        if want == "complex32":  # ember has no complex32: complex64 holds its values
            want = "complex64"
        assert dtypes.result_type(a, b).name == want, (dims_a, dims_b)
        assert dtypes.result_type(b, a).name == want, (dims_a, dims_b)


@pytest.mark.parametrize("name", NAMES + _COMPLEX)
def test_python_complex_scalar_is_weak(name):
    for dims in [(2,), ()]:
        want = str(torch.result_type(torch.zeros(dims, dtype=getattr(torch, name)), 1j))
        want = want.replace("torch.", "").replace("complex32", "complex64")
        assert dtypes.result_type(ember.zeros(dims, dtype=name), 1j).name == want

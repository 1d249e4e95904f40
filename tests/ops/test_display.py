"""Tests of ember/ops/display.py: repr, str and format of tensors."""

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from ember import InvalidParameterError, Tensor
from oracle import on_device

NP = {"float64": np.float64, "float32": np.float32, "float16": np.float16,
      "bfloat16": ml_dtypes.bfloat16}


def t_of(values, dtype=None):
    return ember.from_data(values, dtype=dtype)


# -- exact formats ------------------------------------------------------------------------------

@pytest.mark.parametrize("t, text", [
    (t_of([[1.0, 2.0], [3.0, 4.0]]), "Tensor([[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), dtype=float32)"),
    (t_of(3.5), "Tensor(3.5, shape=(), dtype=float32)"),
    (t_of([1, 2, 3]), "Tensor([1, 2, 3], shape=(3,), dtype=int64)"),
    (t_of([[True, False]]), "Tensor([[True, False]], shape=(1, 2), dtype=bool)"),
    (t_of(7, "uint8"), "Tensor(7, shape=(), dtype=uint8)"),
    (ember.zeros(0), "Tensor([], shape=(0,), dtype=float32)"),
    (ember.zeros(2, 0), "Tensor([[], []], shape=(2, 0), dtype=float32)"),
    (ember.zeros(0, 3), "Tensor([], shape=(0, 3), dtype=float32)"),
    (ember.zeros(2, 0, 3, dtype="int8"), "Tensor([[], []], shape=(2, 0, 3), dtype=int8)"),
    (t_of([1.9, 1.0 / 3.0]), "Tensor([1.9, 0.33333334], shape=(2,), dtype=float32)"),
    (t_of([1.9, 1.0 / 3.0], "float64"), "Tensor([1.9, 0.3333333333333333], shape=(2,), dtype=float64)"),
    *[(t_of(values, dtype), text) for values, dtype, text in [
        ([1.9, 1.0 / 3.0], "float16", "Tensor([1.9, 0.3333], shape=(2,), dtype=float16)"),
        ([1.9, 1.0 / 3.0, 3.14159], "bfloat16", "Tensor([1.9, 0.334, 3.14], shape=(3,), dtype=bfloat16)"),
    ] if on_device([dtype])],
    (t_of([math.nan, math.inf, -math.inf, -0.0]), "Tensor([nan, inf, -inf, -0.0], shape=(4,), dtype=float32)"),
    (t_of([1e20, 1.5e-5, 1e-4, 1e15, 1e16, -2.5e-7], "float64"),
     "Tensor([1e+20, 1.5e-05, 0.0001, 1000000000000000.0, 1e+16, -2.5e-07], shape=(6,), dtype=float64)"),
    (t_of([100.0, 12345.0]), "Tensor([100.0, 12345.0], shape=(2,), dtype=float32)"),
    (t_of([-(2 ** 63), 2 ** 63 - 1]), "Tensor([-9223372036854775808, 9223372036854775807], shape=(2,), dtype=int64)"),
])
def test_repr_exact(t, text):
    assert repr(t) == text


def test_str_is_values_only():
    assert str(t_of([[1.0, 2.0], [3.0, 4.0]])) == "[[1.0, 2.0], [3.0, 4.0]]"
    assert str(t_of(3.5)) == "3.5"
    assert str(t_of(True)) == "True"
    assert str(ember.zeros(0)) == "[]"
    assert f"{t_of([1, 2])}" == "[1, 2]"


def test_requires_grad_shown():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "Tensor([1.0, 2.0], shape=(2,), dtype=float32, requires_grad=True)"
    y = x.cast("float64")
    assert repr(y) == "Tensor([1.0, 2.0], shape=(2,), dtype=float64, requires_grad=True)"
    assert str(x) == "[1.0, 2.0]"
    assert "requires_grad" not in repr(x.detach().without_autodiff())


def test_spec_printed_outputs():
    # the spec's println!("{tensor}") outputs, for the creation and data ops
    assert str(Tensor.zeros((2, 3))) == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"
    assert str(Tensor.full((2, 3), 5.0)) == "[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]"
    assert str(Tensor.from_bool([True, False, True]).int()) == "[1, 0, 1]"
    assert str(Tensor.from_bool([True, False, True]).float()) == "[1.0, 0.0, 1.0]"


# -- summarization and line breaking ------------------------------------------------------------

def test_summarized_1d():
    assert str(ember.arange(2000)) == "[0, 1, 2, ..., 1997, 1998, 1999]"
    assert repr(ember.arange(1001)) == "Tensor([0, 1, 2, ..., 998, 999, 1000], shape=(1001,), dtype=int64)"


def test_not_summarized_up_to_1000():
    text = str(ember.arange(1000))
    assert "..." not in text
    assert [int(v) for v in text.replace("[", "").replace("]", "").replace("\n", " ").split(",")] == \
        list(range(1000))


def test_summarized_2d():
    t = ember.from_numpy(np.arange(3000).reshape(30, 100))
    assert repr(t) == (
        "Tensor([[0, 1, 2, ..., 97, 98, 99],\n"
        "        [100, 101, 102, ..., 197, 198, 199],\n"
        "        [200, 201, 202, ..., 297, 298, 299],\n"
        "        ...,\n"
        "        [2700, 2701, 2702, ..., 2797, 2798, 2799],\n"
        "        [2800, 2801, 2802, ..., 2897, 2898, 2899],\n"
        "        [2900, 2901, 2902, ..., 2997, 2998, 2999]], shape=(30, 100), dtype=int64)")


def test_summarized_keeps_short_dims():
    t = ember.from_numpy(np.arange(2 * 600).reshape(2, 600))
    assert str(t) == "[[0, 1, 2, ..., 597, 598, 599], [600, 601, 602, ..., 1197, 1198, 1199]]"


def test_multiline_3d():
    t = ember.from_numpy(np.arange(2 * 3 * 4).reshape(2, 3, 4) * 1000)
    assert str(t) == (
        "[[[0, 1000, 2000, 3000],\n"
        "  [4000, 5000, 6000, 7000],\n"
        "  [8000, 9000, 10000, 11000]],\n"
        "\n"
        " [[12000, 13000, 14000, 15000],\n"
        "  [16000, 17000, 18000, 19000],\n"
        "  [20000, 21000, 22000, 23000]]]")


def test_long_row_wraps_at_80_columns():
    t = ember.arange(0.0, 40.0)
    text = repr(t)
    lines = text.split("\n")
    assert len(lines) > 1
    assert all(len(line) <= 80 for line in lines[:-1])
    assert all(line.startswith(" " * 8) and not line.startswith(" " * 9) for line in lines[1:])
    assert text.endswith("39.0], shape=(40,), dtype=float32)")


def test_summarized_huge_tensor_is_fast_and_short():
    t = ember.zeros(100, 100, 100, dtype="int8")
    text = str(t)
    assert text.count("...") == 1 + 6 + 36
    assert len(text) < 3000


# -- round trips --------------------------------------------------------------------------------

def _parse(text):
    flat = text.replace("[", " ").replace("]", " ").replace("\n", " ").replace(",", " ").split()
    return [float(v) for v in flat]


@pytest.mark.parametrize("dtype", list(NP))
@settings(max_examples=25)
@given(data=st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=40))
def test_floats_read_back_exactly(dtype, data):
    with np.errstate(over="ignore"):
        arr = np.array(data, dtype=np.float64).astype(NP[dtype])
    t = ember.from_numpy(arr)
    text = str(t)
    back = np.array(_parse(text), dtype=np.float64).astype(NP[dtype])
    np.testing.assert_array_equal(back.astype(np.float64), arr.astype(np.float64))
    for token in text.replace("[", " ").replace("]", " ").replace(",", " ").split():
        assert token in ("nan", "inf", "-inf") or "." in token or "e" in token


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@settings(max_examples=20)
@given(data=st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e4,
                               max_value=1e4), min_size=1, max_size=10))
def test_floats_are_shortest(dtype, data):
    arr = np.array(data, dtype=np.float64).astype(NP[dtype])
    text = str(ember.from_numpy(arr))
    expected = []
    for v in arr:
        sci = np.format_float_scientific(v, unique=True, trim="-")
        positional = float(sci) == 0 or 1e-4 <= abs(float(sci)) < 1e16
        expected.append(np.format_float_positional(v, unique=True, trim="0") if positional else sci)
    assert text == "[" + ", ".join(expected) + "]" or "\n" in text


@pytest.mark.half_precision
def test_bfloat16_shortest():
    t = ember.from_data([1.9, 0.1, 100.0, 1e-5], dtype="bfloat16")
    assert str(t) == "[1.9, 0.1, 100.0, 1e-05]"


def test_layouts_print_logical_order():
    a = np.arange(6).reshape(2, 3)
    assert str(ember.from_numpy(a.T)) == "[[0, 3], [1, 4], [2, 5]]"
    assert str(ember.from_numpy(a[::-1, ::2])) == "[[3, 5], [0, 2]]"


# -- format -------------------------------------------------------------------------------------

def test_format_spec():
    assert f"{ember.tensor(2.5):.3f}" == "2.500"
    assert f"{ember.tensor([[7]]):>4}" == "   7"
    assert format(ember.tensor([1.0, 2.0])) == "[1.0, 2.0]"
    with pytest.raises(InvalidParameterError, match=r"format: spec '\.1f' needs a one-element tensor, this one has 2 elements"):
        format(ember.tensor([1.0, 2.0]), ".1f")

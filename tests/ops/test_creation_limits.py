"""Limits of ember/ops/creation.py's ranges (and ember.array_api's arange): counts past int64,
zero and non-finite steps and bounds raise InvalidParameterError naming the parameter; the
valid edge cases (negative and float steps, empty ranges, int64's ends) still agree with
PyTorch."""

import math
import re

import pytest
import torch

import ember
import ember.array_api as xp
from ember import InvalidParameterError
from oracle import assert_close

ARANGES = [ember.arange, xp.arange]

# (args, the parameter named, a part of the message)
BAD = [
    ((0, 1e300, 1e-300), "step", "start 0, end 1e+300 and step 1e-300 make more than 2**63 - 1"),
    ((0, 10, 1e-310), "step", "make more than 2**63 - 1 values"),
    ((0.0, 1.0, 5e-324), "step", "make more than 2**63 - 1 values"),
    ((-1e308, 1e308, 1.0), "step", "make more than 2**63 - 1 values"),
    ((0, 2 ** 70), "step", "make more than 2**63 - 1 values"),
    ((-2 ** 62, 2 ** 62, 1), "step", "make more than 2**63 - 1 values"),
    ((0, 10, 0), "step", "step is 0; expected a nonzero step"),
    ((0.0, 10.0, 0.0), "step", "step is 0; expected a nonzero step"),
    ((0, 10, math.nan), "step", "step is nan; expected a finite number"),
    ((0, 10, math.inf), "step", "step is inf; expected a finite number"),
    ((math.nan, 1, 1), "start", "start is nan; expected a finite number"),
    ((-math.inf, 1, 1), "start", "start is -inf; expected a finite number"),
    ((0, math.inf), "end", "end is inf; expected a finite number"),
    ((math.nan,), "end", "end is nan; expected a finite number"),
]


@pytest.mark.parametrize("arange", ARANGES, ids=["ember", "array_api"])
@pytest.mark.parametrize("args,param,message", BAD)
def test_arange_refuses(arange, args, param, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)) as info:
        arange(*args)
    assert str(info.value).startswith("arange: ")
    assert info.value.param == param


@pytest.mark.parametrize("args", [(0, 1e18, 1.0), (0, 2 ** 63 - 1)])
def test_arange_too_large_to_allocate(args):
    # a count within int64 but past memory keeps its own typed error
    with pytest.raises(InvalidParameterError, match="too large to allocate"):
        ember.arange(*args)


VALID = [(5,), (0,), (3, 3), (7, 2), (7, 2, -1), (7, 2, -2), (10, 0, -3), (0, 10, 3),
         (0.0, 1.0, 0.25), (1.0, 0.0, -0.3), (10, 0, -0.5), (0, 1, 1e-3), (2.5,), (0.5, 3)]


@pytest.mark.parametrize("arange", ARANGES, ids=["ember", "array_api"])
@pytest.mark.parametrize("args", VALID)
def test_arange_valid_edges_vs_torch(arange, args):
    t = arange(*args)
    try:
        expected = torch.arange(*args, dtype=torch.float64)
    except RuntimeError:  # torch refuses a range its step cannot walk; ember gives []
        assert t.shape == (0,)
        return
    assert t.shape == tuple(expected.shape)
    assert_close(t.cast(ember.float64), expected, atol=1e-6, rtol=1e-6)


INT64_EDGES = [(-2 ** 63, 2 ** 63 - 1, 2 ** 62), (2 ** 63 - 1, -2 ** 63, -2 ** 62),
               (-2 ** 63, 2 ** 63 - 1, 2 ** 64 - 2), (0, 2 ** 60 + 1, 2 ** 59),
               (0, 2 ** 63 - 1, 2 ** 62), (2 ** 63 - 3, 2 ** 63 - 1), (-2 ** 63, -2 ** 63 + 3),
               (0, 5, 2 ** 70), (5, 0, -2 ** 70), (2 ** 63 - 2, 2 ** 63 + 100, 200)]


@pytest.mark.parametrize("arange", ARANGES, ids=["ember", "array_api"])
@pytest.mark.parametrize("args", INT64_EDGES)
def test_arange_exact_at_int64_ends(arange, args):
    # the values are Python's range's, where int64 holds them all (float64 sizing would not)
    t = arange(*args)
    assert t.dtype == ember.int64
    assert t.tolist() == list(range(*args))


@pytest.mark.parametrize("start,end,dtype", [
    (1e39, 1e39, "float32"), (-1e300, 1e300, "float32"), (0.0, 1e300, "float16"),
    (0, 1e30, "int32"), (0, 3e9, "int32"), (-129, 5, "int8"), (-2.5, 127.9, "int8"),
    (0, 1e300, "complex64"),
    (0, 1e39j, "complex64"),
])
def test_linspace_ends_past_the_dtype_are_refused_as_pytorch(start, end, dtype):
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.linspace(start, end, 3, dtype=getattr(torch, dtype))
    with pytest.raises(ember.InvalidParameterError, match=r"(start|end) .* does not fit dtype"):
        ember.linspace(start, end, 3, dtype=dtype)


@pytest.mark.parametrize("start,end,dtype", [
    (0, 3.4e38, "float32"), (-2.5, 127.0, "int8"), (0, 1e300, "float64"), (1.5, 2.5, "int64"),
    (-128.0, 0.5, "int8"), (-7.9, 3.2, "int64"), (3, -4, "int16"),
])
def test_linspace_ends_inside_the_dtype_match_pytorch(start, end, dtype):
    want = torch.linspace(start, end, 5, dtype=getattr(torch, dtype)).tolist()
    assert ember.linspace(start, end, 5, dtype=dtype).tolist() == pytest.approx(want, rel=1e-6)

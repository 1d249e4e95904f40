"""Tests of ember/shapes.py: the shared dim and shape helpers, their errors and messages."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from ember import DimensionError, InvalidParameterError, ShapeMismatchError
from ember import shapes


def test_prod():
    assert shapes.prod(()) == 1
    assert shapes.prod((2, 3, 4)) == 24
    assert shapes.prod([5, 0, 2]) == 0
    assert shapes.prod([2 ** 40, 2 ** 40]) == 2 ** 80  # Python ints: no overflow


def test_as_int_accepts():
    assert shapes.as_int(3, "op", "p") == 3
    assert shapes.as_int(np.int32(-4), "op", "p") == -4
    assert shapes.as_int(np.uint8(7), "op", "p") == 7
    assert shapes.as_int(ember.tensor(5), "op", "p") == 5
    assert shapes.as_int(ember.tensor([[6]], dtype="int8"), "op", "p") == 6
    assert type(shapes.as_int(np.int64(2), "op", "p")) is int


@pytest.mark.parametrize("value, match", [
    (True, r"op: p must be an int, got bool True"),
    (np.bool_(False), r"op: p must be an int, got bool np.False_"),
    (2.0, r"op: p must be an int, got float 2.0"),
    ("3", r"op: p must be an int, got str '3'"),
    (None, r"op: p must be an int, got NoneType None"),
    (np.float64(1.0), r"op: p must be an int, got float64 np.float64\(1.0\)"),
    (ember.tensor(1.0), r"op: p must be an int, got Tensor"),
    (ember.tensor([1, 2]), r"op: p must be an int, got Tensor"),
])
def test_as_int_errors(value, match):
    with pytest.raises(InvalidParameterError, match=match) as info:
        shapes.as_int(value, "op", "p")
    assert info.value.param == "p"


def test_argfix():
    assert shapes.argfix((2, 3), "op") == (2, 3)
    assert shapes.argfix(((2, 3),), "op") == (2, 3)
    assert shapes.argfix(([2, 3],), "op") == (2, 3)
    assert shapes.argfix((), "op") == ()
    assert shapes.argfix(((),), "op") == ()
    assert shapes.argfix((np.array([4, 5]),), "op") == (4, 5)
    assert shapes.argfix((np.array(4),), "op") == (4,)
    assert shapes.argfix((ember.tensor([1, 2]),), "op") == (1, 2)
    assert shapes.argfix((7,), "op") == (7,)


@pytest.mark.parametrize("ndim", [1, 2, 4])
def test_normalize_dim(ndim):
    for d in range(-ndim, ndim):
        assert shapes.normalize_dim(d, ndim, "op") == d % ndim
    assert shapes.normalize_dim(np.int64(-1), ndim, "op") == ndim - 1


def test_normalize_dim_errors():
    with pytest.raises(DimensionError, match=r"op: dim 3 is out of range for a tensor of rank 3; expected a dim in \[-3, 2\]"):
        shapes.normalize_dim(3, 3, "op")
    with pytest.raises(DimensionError, match=r"op: axis -4 is out of range for a tensor of rank 3; expected a dim in \[-3, 2\]"):
        shapes.normalize_dim(-4, 3, "op", "axis")
    with pytest.raises(DimensionError, match="op: dim 0 is out of range for a tensor of rank 0; a 0-d tensor has no dims"):
        shapes.normalize_dim(0, 0, "op")
    with pytest.raises(InvalidParameterError, match="op: dim must be an int, got float 1.0"):
        shapes.normalize_dim(1.0, 3, "op")
    with pytest.raises(IndexError):  # DimensionError is an IndexError
        shapes.normalize_dim(5, 2, "op")


def test_normalize_dims():
    assert shapes.normalize_dims((0, -1), 3, "op") == (0, 2)
    assert shapes.normalize_dims([1], 3, "op") == (1,)
    assert shapes.normalize_dims(-2, 3, "op") == (1,)
    assert shapes.normalize_dims((), 3, "op") == ()
    assert shapes.normalize_dims((0, -3), 3, "op", allow_duplicates=True) == (0, 0)
    with pytest.raises(InvalidParameterError, match=r"op: dims \(0, -3\) repeats a dim; expected distinct dims"):
        shapes.normalize_dims((0, -3), 3, "op")
    with pytest.raises(DimensionError, match="op: dims 5 is out of range"):
        shapes.normalize_dims((0, 5), 3, "op")


shape_st = st.lists(st.integers(0, 4), max_size=4).map(tuple)


@settings(max_examples=60)
@given(st.lists(shape_st, min_size=1, max_size=4))
def test_broadcast_shapes_vs_numpy(shape_list):
    try:
        expected = np.broadcast_shapes(*shape_list)
    except ValueError:
        with pytest.raises(ShapeMismatchError, match="broadcast: shapes .* do not broadcast"):
            shapes.broadcast_shapes(*shape_list)
        return
    assert shapes.broadcast_shapes(*shape_list) == expected


def test_broadcast_shapes_errors():
    with pytest.raises(ShapeMismatchError, match=r"add: shapes \(2, 3\) and \(4,\) do not broadcast \(size 4 against 3 at dim -1\)") as info:
        shapes.broadcast_shapes((2, 3), (4,), op="add")
    assert info.value.actual == (4,)
    assert shapes.broadcast_shapes() == ()
    assert shapes.broadcast_shapes((), (3, 1), (1, 4)) == (3, 4)
    assert shapes.broadcast_shapes((0, 1), (1, 5)) == (0, 5)


@pytest.mark.parametrize("new, old, expected", [
    ((-1,), (2, 3), (6,)),
    ((3, -1), (2, 3), (3, 2)),
    ((None, -1), (2, 3, 4), (2, 12)),
    ((0, -1), (2, 3, 4), (2, 12)),
    ((0, 3), (0, 3), (0, 3)),
    ((4, 0), (2, 0), (4, 0)),
    ((), (1, 1), ()),
    ((-1,), (), (1,)),
    ((1, -1, 1), (5,), (1, 5, 1)),
])
def test_infer_shape(new, old, expected):
    assert shapes.infer_shape(new, old) == expected
    if None not in new and 0 not in new:
        assert np.empty(old).reshape(new).shape == expected


def test_infer_shape_errors():
    with pytest.raises(InvalidParameterError, match=r"reshape: shape \(-1, -1\) has more than one -1"):
        shapes.infer_shape((-1, -1), (2, 3))
    with pytest.raises(InvalidParameterError, match=r"view: shape \(2, -2\) has negative size -2; expected sizes >= 0 or one -1"):
        shapes.infer_shape((2, -2), (2, 3), op="view")
    with pytest.raises(ShapeMismatchError, match=r"reshape: shape \(4, 2\) has 8 elements, expected 6 \(input shape \(2, 3\)\)"):
        shapes.infer_shape((4, 2), (2, 3))
    with pytest.raises(ShapeMismatchError, match=r"reshape: cannot infer the -1 in \(4, -1\) for 6 elements"):
        shapes.infer_shape((4, -1), (2, 3))
    with pytest.raises(ShapeMismatchError, match=r"reshape: cannot infer the -1 in \(0, -1\) for 0 elements"):
        shapes.infer_shape((0, -1), (0, 3))
    with pytest.raises(InvalidParameterError, match=r"reshape: shape \(2, None, None\) keeps the size of dim 2, which the input of shape \(2, 3\) does not have"):
        shapes.infer_shape((2, None, None), (2, 3))
    with pytest.raises(InvalidParameterError, match="reshape: shape must be an int, got float 2.0"):
        shapes.infer_shape((2.0, 3), (2, 3))


# -- the fast-path tests and fast returns ------------------------------------------------------

def test_is_plain_shape():
    assert shapes.is_plain_shape((2, 3), 6) and shapes.is_plain_shape((), 1)
    assert shapes.is_plain_shape((1, 1, 4), 4)
    for sizes, numel in [((2, 3), 5), ((2, -1), 6), ((0, 3), 0), ((2, None), 6), ([2, 3], 6),
                         ((True, 6), 6), ((np.int64(2), 3), 6), ((2.0, 3), 6), ((), 0)]:
        assert not shapes.is_plain_shape(sizes, numel), sizes


def test_is_plain_shape_agrees_with_infer_shape():
    # a plain shape is exactly what infer_shape returns unchanged
    for sizes, old in [((2, 3), (6,)), ((4,), (2, 2)), ((1, 6, 1), (3, 2)), ((), (1, 1))]:
        assert shapes.is_plain_shape(sizes, shapes.prod(old))
        assert shapes.infer_shape(sizes, old) == sizes


def test_is_permutation():
    assert shapes.is_permutation((2, 0, 1), 3) and shapes.is_permutation((), 0)
    assert shapes.is_permutation([1, 0], 2)
    for order, n in [((0, 0, 1), 3), ((0, 1), 3), ((-1, 0), 2), ((True, 0), 2), ((0, 2), 2),
                     ((np.int64(1), 0), 2), ((1.0, 0), 2)]:
        assert not shapes.is_permutation(order, n), order


def test_as_int_and_normalize_dim_fast_returns_keep_the_checks():
    assert shapes.as_int(7, "op", "p") == 7 and shapes.normalize_dim(-1, 3, "op") == 2
    with pytest.raises(InvalidParameterError, match="op: p must be an int, got bool True"):
        shapes.as_int(True, "op", "p")
    with pytest.raises(InvalidParameterError, match="op: dim must be an int, got bool False"):
        shapes.normalize_dim(False, 3, "op")
    with pytest.raises(DimensionError, match="op: dim 3 is out of range for a tensor of rank 3"):
        shapes.normalize_dim(3, 3, "op")
    assert shapes.normalize_dim(np.int64(-3), 3, "op") == 0


# -- the rank limit: no tensor has more than 64 dims ------------------------------------------------

def _rank64():
    return ember.zeros(*[1] * 64)


RANK_65 = {
    "zeros": lambda: ember.zeros(*[1] * 65),
    "ones": lambda: ember.ones([1] * 65),
    "full": lambda: ember.full([1] * 65, 2.0),
    "empty": lambda: ember.empty(*[1] * 65),
    "rand": lambda: ember.rand(*[1] * 65),
    "randn": lambda: ember.randn([1] * 65),
    "randint": lambda: ember.randint(0, 2, [1] * 65),
    "random": lambda: ember.random([1] * 65),
    "tensor": lambda: ember.tensor(eval("[" * 65 + "1" + "]" * 65)),
    "cartesian_grid": lambda: ember.Tensor.cartesian_grid([1] * 64),
    "reshape": lambda: ember.zeros(1).reshape([1] * 65),
    "reshape (varargs)": lambda: ember.zeros(1).reshape(*[1] * 65),
    "view": lambda: ember.zeros(1).view(*[1] * 65),
    "unflatten": lambda: ember.zeros(1).unflatten(0, [1] * 65),
    "expand": lambda: ember.zeros(1).expand(*[1] * 65),
    "repeat": lambda: ember.zeros(1).repeat([1] * 65),
    "permute": lambda: ember.zeros(1).permute(*[0] * 65),
    "unsqueeze": lambda: _rank64().unsqueeze(0),
    "unsqueeze_dim": lambda: _rank64().unsqueeze_dim(-1),
    "unsqueeze_dims": lambda: ember.zeros(*[1] * 63).unsqueeze_dims([0, 1]),
    "unsqueeze_to": lambda: ember.zeros(1).unsqueeze_to(65),
    "unfold": lambda: _rank64().unfold(0, 1, 1),
    "one_hot": lambda: ember.zeros(*[1] * 64, dtype="int64").one_hot(2),
    "stack": lambda: ember.stack([_rank64(), _rank64()]),
    "Tensor.stack": lambda: _rank64().stack(_rank64(), dim=-1),
    "cat (shape=)": lambda: ember.cat([], 0, shape=[0] * 65),
}


@pytest.mark.parametrize("name", list(RANK_65))
def test_results_of_rank_above_64_raise_the_typed_error(name):
    with pytest.raises(InvalidParameterError, match=r"at most 64 dims") as info:
        RANK_65[name]()
    assert "rank 65" in str(info.value) or "rank 129" in str(info.value)


def test_rank_64_is_fine_and_check_rank_returns_the_rank():
    t = _rank64()
    assert t.ndim == 64 and t.squeeze(0).unsqueeze(0).ndim == 64
    assert ember.zeros(*[1] * 63).unsqueeze(0).ndim == 64
    assert shapes.check_rank(64, "op") == 64 and shapes.MAX_RANK == 64
    with pytest.raises(InvalidParameterError, match=r"op: shape gives a result of rank 65"):
        shapes.check_rank(65, "op")


# -- ints past the int64 range: typed errors (or, for comparisons, the exact answer) -------------

@pytest.mark.parametrize("value", [2 ** 63, -(2 ** 63) - 1, 2 ** 100])
def test_as_int_refuses_ints_outside_int64(value):
    with pytest.raises(InvalidParameterError, match=rf"op: p {value} is out of range; expected an "
                                                    r"int in \[-2\*\*63, 2\*\*63\)"):
        shapes.as_int(value, "op", "p")
    assert shapes.as_int(value, "op", "p", wide=True) == value
    assert shapes.as_int(2 ** 63 - 1, "op", "p") == 2 ** 63 - 1
    assert shapes.as_int(-(2 ** 63), "op", "p") == -(2 ** 63)


BIG_ARGUMENTS = {
    "repeat": (lambda t: t.repeat(3, 2 ** 63), "repeat: repeats 9223372036854775808"),
    "repeat_dim": (lambda t: t.repeat_dim(0, 2 ** 64), "repeat_dim: times 18446744073709551616"),
    "repeat_interleave": (lambda t: t.repeat_interleave(2 ** 63), "repeat_interleave: repeats"),
    "one_hot": (lambda t: t.one_hot(2 ** 63), "one_hot: num_classes 9223372036854775808"),
    "round": (lambda t: t.float().round(2 ** 63), "round: decimals 9223372036854775808"),
    "unsqueeze": (lambda t: t.unsqueeze(2 ** 63), "unsqueeze: dim 9223372036854775808"),
    "chunk": (lambda t: t.chunk(2 ** 63), "chunk: chunks 9223372036854775808"),
    "topk": (lambda t: t.topk(2 ** 64), "topk: k 18446744073709551616"),
    "pow": (lambda t: t ** 2 ** 63, "pow: integers to negative integer powers are not allowed "
                                    "(other has a negative value for int64 operands: "
                                    "9223372036854775808 wraps to a negative int64)"),
    "pow (method)": (lambda t: t.pow(2 ** 63), "pow: integers to negative integer powers"),
}


@pytest.mark.parametrize("name", list(BIG_ARGUMENTS))
def test_int_arguments_of_2_63_and_up_raise_the_typed_error(name):
    call, message = BIG_ARGUMENTS[name]
    t = ember.tensor([1, 0, 2])
    with pytest.raises(InvalidParameterError) as info:
        call(t)
    assert str(info.value).startswith(message), str(info.value)
    assert t.tolist() == [1, 0, 2]


def test_comparisons_with_ints_past_int64_are_exact():
    import torch
    b = ember.tensor([True, False])
    for big in (2 ** 63, 2 ** 64, 2 ** 100, -(2 ** 63) - 1):
        expected_ge = [True, True] if big < 0 else [False, False]
        assert (b >= big).tolist() == expected_ge
        assert (b < big).tolist() == [not v for v in expected_ge]
        assert (b == big).tolist() == [False, False]
        assert (ember.tensor([1, 2]) >= big).tolist() == expected_ge
    # within int64 a bool tensor compares as the ints 0 and 1, as PyTorch
    small = torch.tensor([True, False]) >= 1
    assert (b >= 1).tolist() == small.tolist()
    assert (ember.tensor([1, 2]) ** 3).tolist() == [1, 8]
    assert ember.tensor([2 ** 63], dtype="uint64").pow(1).tolist() == [2 ** 63]

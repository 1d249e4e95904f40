"""Tests of ember/ops/fusion.py: fused elementwise expressions on large tensors.

Values are checked against PyTorch 2.13 and bit for bit against the same NumPy expression (the
same kernels in the same order); that the middle of ``x * y + z`` is never materialized is
checked with tracemalloc, which sees NumPy's buffers.
"""

import dis
import pickle
import tracemalloc
import types

import numpy as np
import pytest
import torch

import ember
from ember.ops import fusion
from ember.tensor import Pending, Tensor
from oracle import assert_close, assert_unchanged, ember_tensor, layouts, random_array, snapshot
from oracle import to_torch

RNG = np.random.default_rng(7)
BIG = (600, 300)  # 180,000 elements: 720 KB in float32, above fusion.MIN_BYTES


class Keep:
    """A right-hand operand that keeps what it is added to, to look at the middle of an
    expression: ``keep + x * y`` hands ``x * y`` to ``Keep.__add__``."""

    def __init__(self):
        self.kept = []

    def __add__(self, other):
        self.kept.append(other)
        return self


# Each expression is written out so that its bytecode is the one a user's would be.
EXPRESSIONS = {
    "x*y+z": lambda x, y, z, w: x * y + z,
    "z-x*y": lambda x, y, z, w: z - x * y,
    "x*y+z-w": lambda x, y, z, w: x * y + z - w,
    "(x+y)*(z-w)": lambda x, y, z, w: (x + y) * (z - w),
    "x*y+z*w": lambda x, y, z, w: x * y + z * w,
    "x*2.5-y": lambda x, y, z, w: x * 2.5 - y,
    "1.5-x*y": lambda x, y, z, w: 1.5 - x * y,
    "2*x+3": lambda x, y, z, w: 2 * x + 3,
    "x/y+z": lambda x, y, z, w: x / y + z,
    "(x+y)/z*w": lambda x, y, z, w: (x + y) / z * w,
    "3.0/x-y/2.0": lambda x, y, z, w: 3.0 / x - y / 2.0,
}
FLOAT_ONLY = {"x*2.5-y", "1.5-x*y", "x/y+z", "(x+y)/z*w", "3.0/x-y/2.0"}


def operands(dtype, shape=BIG):
    arrays = [random_array(RNG, shape, dtype, 1, 9) for _ in range(4)]
    if dtype.startswith("float"):
        arrays = [np.where(np.abs(a) < 0.1, 0.5, a).astype(dtype) for a in arrays]  # no x/0
    return arrays


@pytest.mark.parametrize("name, dtype", [
    (name, dtype) for dtype in ("float32", "float64", "int64", "int32") for name in EXPRESSIONS
    if dtype.startswith("float") or name not in FLOAT_ONLY])
def test_fused_expressions_match_torch_and_numpy(name, dtype):
    expr = EXPRESSIONS[name]
    arrays = operands(dtype)
    tensors = [ember_tensor(a) for a in arrays]
    before = snapshot(*tensors)
    result = expr(*tensors)
    assert type(result) is Tensor
    assert_close(result, expr(*[to_torch(t) for t in tensors]))
    expected = expr(*arrays)
    assert result.dtype.name == expected.dtype.name
    assert np.array_equal(result.numpy(), expected)
    assert_unchanged(tensors, before)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "flipped", "stepped"])
def test_non_contiguous_operands(layout):
    arrays = [dict(layouts(a))[layout] for a in operands("float32")]
    tensors = [ember_tensor(a) for a in arrays]
    for name, expr in EXPRESSIONS.items():
        assert np.array_equal(expr(*tensors).numpy(), expr(*arrays)), name


def test_broadcast_and_mixed_dtype_operands_take_the_eager_path():
    x, y = (ember_tensor(a) for a in operands("float32")[:2])
    row = ember_tensor(random_array(RNG, (1, BIG[1]), "float32"))
    z64 = ember_tensor(random_array(RNG, BIG, "float64"))
    assert_close(x * y + row, to_torch(x) * to_torch(y) + to_torch(row))
    result = x * y + z64
    assert result.dtype.name == "float64"
    assert_close(result, to_torch(x) * to_torch(y) + to_torch(z64))


def peak_buffers(fn, nbytes):
    """The most memory ``fn()`` held at once, in buffers of ``nbytes``."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del result
    return peak / nbytes


def test_the_middle_of_an_expression_is_not_materialized():
    x, y, z, w = (ember.rand(1 << 18, dtype="float64") for _ in range(4))
    nbytes = 8 << 18

    def in_two_statements():
        t = x * y
        return t + z

    assert peak_buffers(lambda: x * y + z, nbytes) == pytest.approx(1, abs=0.05)
    assert peak_buffers(lambda: x * y + z - w * 2.0, nbytes) < 2.05
    assert peak_buffers(lambda: (x + y) * z / w - 1.0, nbytes) == pytest.approx(1, abs=0.05)
    assert peak_buffers(in_two_statements, nbytes) == pytest.approx(2, abs=0.05)


def test_the_middle_is_pending_only_for_large_untracked_tensors():
    big = [ember_tensor(a) for a in operands("float32")[:2]]
    small = [ember.rand(8), ember.rand(8)]
    tracked = [big[0].detach().require_grad(), big[1]]
    kinds = []
    for x, y in (big, small, tracked):
        keep = Keep()
        keep + x * y  # not inside an assert: pytest rewrites those into several statements
        kinds.append(type(keep.kept[0]))
    assert kinds == [Pending, Tensor, Tensor]


def test_an_escaped_pending_computes_its_values_when_read():
    arrays = operands("float32")[:2]
    x, y = (ember_tensor(a) for a in arrays)
    keep = Keep()
    keep + x * y
    p = keep.kept[0]
    assert type(p) is Pending and isinstance(p, Tensor)
    assert p.shape == BIG and p.dtype is ember.float32
    assert type(p) is Pending  # shape and dtype are known without computing
    assert np.array_equal(p.numpy(), arrays[0] * arrays[1])
    assert type(p) is Tensor
    keep + x * y
    q = pickle.loads(pickle.dumps(keep.kept[1]))
    assert type(q) is Tensor and np.array_equal(q.numpy(), arrays[0] * arrays[1])


def test_an_escaped_pending_works_with_every_op():
    x, y = (ember_tensor(a) for a in operands("float64")[:2])
    expected = to_torch(x) * to_torch(y)
    keep = Keep()
    for _ in range(4):
        keep + x * y
    a, b, c, d = keep.kept
    assert_close(a.sum(), expected.sum())
    assert_close(b[3:5, ::7].T, expected[3:5, ::7].T)
    assert_close(ember.cat([c, x]), torch.cat([expected, to_torch(x)]))
    d.require_grad()
    (d * d).sum().backward()
    assert_close(d.grad, 2 * expected)


def test_tracked_operands_get_their_gradients():
    arrays = operands("float64")[:3]
    x, y, z = (ember_tensor(a, requires_grad=True) for a in arrays)
    tx, ty, tz = (torch.from_numpy(a).requires_grad_(True) for a in arrays)
    (x * y + z * 2.0 - y / z).sum().backward()
    (tx * ty + tz * 2.0 - ty / tz).sum().backward()
    for ours, theirs in ((x, tx), (y, ty), (z, tz)):
        assert_close(ours.grad, theirs.grad)
    u = ember_tensor(arrays[0])  # untracked: its product is pending, then meets a tracked z
    w = ember_tensor(arrays[2], requires_grad=True)
    (u * u + w * w).sum().backward()
    assert_close(w.grad, 2 * torch.from_numpy(arrays[2]))


def test_a_long_expression_is_computed_in_parts():
    x = ember.rand(1 << 17, dtype="float64")
    terms = " + ".join(f"x * {k}.0" for k in range(1, 60))
    fn = eval(f"lambda x: {terms}")
    assert np.array_equal(fn(x).numpy(), fn(x.numpy()))


def sites(source):
    """Whether each ``BINARY_OP`` of ``source`` feeds the next operator, in order."""
    code = compile(source, "<test>", "exec")
    return [fusion.feeds_next_operator(types.SimpleNamespace(f_code=code, f_lasti=ins.offset))
            for ins in dis.get_instructions(code) if ins.opname == "BINARY_OP"]


@pytest.mark.parametrize("source, expected", [
    ("x * y + z", [True, False]),
    ("z + x * y", [True, False]),
    ("t = x * y", [False]),
    ("x * y + z * w", [True, True, False]),
    ("x * y + (z - w) * v", [True, True, True, False]),
    ("x * y + z[0]", [False, False]),
    ("x * y + -z", [False, False]),
    ("x * y + 1.0", [True, False]),
    ("f(x * y)", [False]),
    ("x * y @ z", [False, False]),
    ("x * y + z.attr", [False, False]),
    ("x += y * z", [False, False]),
    ("x * y ** z", [True, False]),
    ("x * y + g(z)", [False, False]),
])
def test_feeds_next_operator_reads_the_bytecode(source, expected):
    assert sites(source) == expected


def test_feeds_next_operator_outside_an_operator_is_false():
    code = compile("f(x)", "<test>", "exec")
    call = [i for i in dis.get_instructions(code) if i.opname.startswith("CALL")][0]
    assert not fusion.feeds_next_operator(types.SimpleNamespace(f_code=code, f_lasti=call.offset))
    assert not fusion.feeds_next_operator(types.SimpleNamespace(f_code=code, f_lasti=10**6))


@pytest.fixture
def everything_pending(monkeypatch):
    """Every untracked ``+ - * /`` result is Pending, whatever its size or use."""
    monkeypatch.setattr(fusion, "MIN_BYTES", 0)
    monkeypatch.setattr(fusion, "feeds_next_operator", lambda frame: True)
    monkeypatch.setattr(fusion, "_MAX_DEPTH", 3)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_pending_tensors_behave_as_tensors(everything_pending, shape, dtype):
    arrays = operands(dtype, shape)
    tensors = [ember_tensor(a) for a in arrays]
    torches = [to_torch(t) for t in tensors]
    x, y, z, w = tensors
    assert type(x + y) is Pending
    for name, expr in EXPRESSIONS.items():
        if dtype.startswith("int") and name in FLOAT_ONLY:
            continue
        assert_close(expr(*tensors), expr(*torches))
    p = x * y + z
    tp = torches[0] * torches[1] + torches[2]
    assert_close(p.reshape(-1), tp.reshape(-1))
    assert_close(ember.stack([x - y, p]), torch.stack([torches[0] - torches[1], tp]))
    assert_close(p == x * y + z, torch.ones(shape, dtype=torch.bool))
    q = x + w
    q.inplace(lambda t: t * 2)  # rebinds a Pending's buffer
    assert_close(q, (torches[0] + torches[3]) * 2)


def test_pending_tensors_with_tracked_operands(everything_pending):
    arrays = operands("float64", (3, 4))
    x = ember_tensor(arrays[0], requires_grad=True)
    u, v = ember_tensor(arrays[1]), ember_tensor(arrays[2])
    loss = (u * v + x * x - u / v).sum()
    loss.backward()
    assert_close(x.grad, 2 * torch.from_numpy(arrays[0]))

"""ember/torch/control_flow.py against torch 2.13: cond, while_loop, vmap, fork and wait
(eager semantics), values and gradients."""

import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from math_oracle import check, rand


@pytest.mark.parametrize("pred", [True, False])
def test_cond_as_torch(pred):
    x = rand((3,), "float64")
    check(lambda m, a: m.cond(m.tensor(pred), lambda v: v.sin() * 2, lambda v: v.cos() - 1,
                              (a,)), x)
    check(lambda m, a, b: m.cond(pred, lambda u, v: u * v + 1, lambda u, v: u - v, [a, b]),
          x, rand((3,), "float64", seed=1))


def test_cond_with_a_number_tensor_and_no_operands():
    assert et.cond(et.tensor(2.0), lambda: et.ones(1), lambda: et.zeros(1)).tolist() == \
        torch.cond(torch.tensor(2.0), lambda: torch.ones(1), lambda: torch.zeros(1)).tolist()
    out = et.cond(True, lambda x: (x, x + 1), lambda x: (x, x), (et.ones(1),))
    assert isinstance(out, tuple) and out[1].tolist() == [2.0]


def test_cond_errors():
    with pytest.raises(InvalidParameterError, match="single-element"):
        et.cond(et.tensor([True, False]), lambda x: x, lambda x: x, (et.ones(1),))
    with pytest.raises(RuntimeError, match="single-element"):
        torch.cond(torch.tensor([True, False]), lambda x: x, lambda x: x, (torch.ones(1),))
    with pytest.raises(KindError):
        et.cond("yes", lambda: 1, lambda: 2)
    with pytest.raises(KindError):
        et.cond(True, 1, lambda: 2)
    with pytest.raises(KindError):
        et.cond(True, lambda x: x, lambda x: x, et.ones(1))


def test_while_loop_as_torch():
    x = rand((2,), "float64")
    check(lambda m, a: m.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2 + 1),
                                    (m.tensor(0), a)), x)
    check(lambda m, a: m.while_loop(lambda v: v.abs().sum() < 50, lambda v: (v * 3,),
                                    (a + 0.5,)), x)


def test_while_loop_zero_iterations_and_errors():
    i, v = et.while_loop(lambda i, v: i < 0, lambda i, v: (i + 1, v), (et.tensor(0), et.ones(2)))
    assert i.item() == 0 and v.tolist() == [1.0, 1.0]
    with pytest.raises(InvalidParameterError):
        et.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1,), (et.tensor(0), et.ones(1)))
    with pytest.raises(InvalidParameterError, match="single-element"):
        et.while_loop(lambda v: v < 10, lambda v: (v * 2,), (et.ones(2),))
    with pytest.raises(KindError):
        et.while_loop(lambda v: True, lambda v: v, et.ones(1))


@pytest.mark.parametrize("in_dims", [0, 1])
def test_vmap_as_torch(in_dims):
    x = rand((3, 4), "float64")
    check(lambda m, a: m.vmap(lambda r: (r * r).sum(), in_dims=in_dims)(a), x)
    check(lambda m, a, b: m.vmap(m.dot)(a, b), x, rand((3, 4), "float64", seed=2))


def test_fork_and_wait_as_torch():
    x = rand((3,), "float64")
    check(lambda m, a: m.wait(m.fork(lambda v, k: v * k, a, k=3)), x)
    check(lambda m, a: m.jit.wait(m.jit.fork(lambda v: v.exp(), a)) if m is torch
          else m.wait(m.fork(lambda v: v.exp(), a)), x)
    fut = et.fork(lambda: 7)
    assert fut.done() and fut.wait() == 7 and fut.value() == 7
    assert fut.then(lambda f: f.wait() * 2).wait() == 14
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    assert seen == [7]


def test_fork_hands_the_error_to_wait():
    def boom():
        raise ValueError("bad")
    fut = et.fork(boom)
    with pytest.raises(ValueError, match="bad"):
        et.wait(fut)
    with pytest.raises(KindError):
        et.wait(3)
    with pytest.raises(KindError):
        et.fork(3)

"""ember.torch.nn.CrossMapLRN2d against PyTorch's legacy module: values for many sizes and
channel counts, its gradient against central differences of PyTorch's forward (PyTorch's own
backward is not the derivative of its forward in general) and against PyTorch's backward
where that one is, repr, and typed errors."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


ARGS = [(1, 1e-4, 0.75, 1), (2, 0.1, 0.75, 2.0), (3, 0.5, 1.0, 1.0), (4, 0.2, 0.5, 1.5),
        (5, 1.0, 0.75, 2), (6, 0.3, 2.0, 1.0), (13, 0.1, 0.75, 1.0)]


@pytest.mark.parametrize("args", ARGS)
@pytest.mark.parametrize("shape", [(2, 1, 3, 4), (2, 3, 2, 2), (1, 7, 3, 1), (3, 12, 2, 2),
                                   (0, 4, 2, 2), (2, 5, 0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_matches_torch(args, shape, dtype):
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    want = torch.nn.CrossMapLRN2d(*args)(torch.from_numpy(x))
    got = et.nn.CrossMapLRN2d(*args)(et.tensor(x))
    assert got.dtype == getattr(et, dtype) and tuple(got.shape) == tuple(want.shape)
    close(got.numpy(), want, 1e-6 if dtype == "float64" else 1e-5)


def test_non_contiguous_input():
    x = np.random.default_rng(0).standard_normal((3, 2, 6, 5))
    want = torch.nn.CrossMapLRN2d(3, 0.5)(torch.from_numpy(x).permute(2, 0, 3, 1))
    got = et.nn.CrossMapLRN2d(3, 0.5)(et.tensor(x).permute(2, 0, 3, 1))
    close(got.numpy(), want)


@pytest.mark.parametrize("args", ARGS)
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_gradient_is_the_derivative_of_torchs_forward(args, channels):
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((2, channels, 2, 3))
    g = rng.standard_normal(x.shape)
    ex = et.tensor(x, requires_grad=True)
    (et.nn.CrossMapLRN2d(*args)(ex) * et.tensor(g)).sum().backward()
    torch_lrn = torch.nn.CrossMapLRN2d(*args)
    h = 1e-6
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        f_up = (torch_lrn(torch.from_numpy(up)) * torch.from_numpy(g)).sum().item()
        f_down = (torch_lrn(torch.from_numpy(down)) * torch.from_numpy(g)).sum().item()
        numeric[i] = (f_up - f_down) / (2 * h)
    close(ex.grad.numpy(), numeric, 1e-6)


@pytest.mark.parametrize("size,channels", [(2, 1), (4, 2), (5, 2), (6, 3), (13, 3)])
def test_gradient_matches_torchs_backward_where_that_is_exact(size, channels):
    rng = np.random.default_rng(size)
    x = rng.standard_normal((2, channels, 3, 2))
    g = rng.standard_normal(x.shape)
    tx = torch.from_numpy(x).requires_grad_()
    (torch.nn.CrossMapLRN2d(size, 0.3, 0.75, 1.0)(tx) * torch.from_numpy(g)).sum().backward()
    ex = et.tensor(x, requires_grad=True)
    (et.nn.CrossMapLRN2d(size, 0.3, 0.75, 1.0)(ex) * et.tensor(g)).sum().backward()
    close(ex.grad.numpy(), tx.grad)


def test_second_order_gradient_exists():
    # PyTorch's legacy Function has no double backward; ember's is the composition's: check
    # a Hessian-vector product against central differences of ember's gradient
    rng = np.random.default_rng(1)
    x, v = rng.standard_normal((1, 4, 2, 2)), rng.standard_normal((1, 4, 2, 2))
    lrn = et.nn.CrossMapLRN2d(3, 0.5, 0.75, 1.0)

    def grad(a, create=False):
        t = et.tensor(a, requires_grad=True)
        (gx,) = et.autograd.grad(lrn(t).square().sum(), t, create_graph=create)
        return t, gx
    t, gx = grad(x, True)
    (hv,) = et.autograd.grad((gx * et.tensor(v)).sum(), t)
    h = 1e-6
    numeric = (grad(x + h * v)[1].numpy() - grad(x - h * v)[1].numpy()) / (2 * h)
    close(hv.numpy(), numeric, 1e-6)


def test_repr_and_no_state():
    for args in ((3,), (5, 0.001, 0.5, 2.0)):
        tm, em = torch.nn.CrossMapLRN2d(*args), et.nn.CrossMapLRN2d(*args)
        assert repr(em) == repr(tm)
        assert list(em.state_dict()) == list(tm.state_dict()) == []


def test_bad_input_raises_typed_errors():
    with pytest.raises(ember.errors.ShapeMismatchError, match="4-d"):
        et.nn.CrossMapLRN2d(3)(et.ones(2, 3, 4))
    with pytest.raises(ValueError, match="4D"):
        torch.nn.CrossMapLRN2d(3)(torch.ones(2, 3, 4))
    with pytest.raises(ember.errors.KindError):
        et.nn.CrossMapLRN2d(3)(et.ones(1, 2, 2, 2, dtype=et.int64))
    with pytest.raises(ember.errors.InvalidParameterError, match="size"):
        et.nn.CrossMapLRN2d(0)
    with pytest.raises(ember.errors.InvalidParameterError, match="alpha"):
        et.nn.CrossMapLRN2d(3, alpha="a")

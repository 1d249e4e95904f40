"""The optimizers never write a parameter's new value into its buffer: every step computes a
new array and gives it to the parameter and its views (ember/ops/aliasing.py), so no NumPy
array or recorded step (in this thread or another) ever sees a value change, even when a
reference count showed the buffer unshared just before; ember views follow, as PyTorch's."""

import sys
import threading
import time
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import optim
be = ember.Device("cpu").backend  # the NumPy backend's kernels, called directly

SGD_OPTIONS = [
    {"lr": 0.1},
    {"lr": 0.1, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.5},
    {"lr": 0.05, "momentum": 0.8, "nesterov": True},
    {"lr": 0.1, "weight_decay": 0.1},
    {"lr": 0.01, "momentum": 0.9, "maximize": True, "weight_decay": 0.01},
]


@pytest.mark.parametrize("options", SGD_OPTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_sgd_matches_torch_and_leaves_the_old_buffer_alone(options, dtype):
    rng = np.random.default_rng(0)
    w0, x0 = rng.standard_normal((4, 3)), rng.standard_normal((5, 4))
    w = ember.tensor(w0, dtype=dtype).require_grad()
    x = ember.tensor(x0, dtype=dtype)
    tw = torch.tensor(w0, dtype=getattr(torch, dtype), requires_grad=True)
    tx = torch.tensor(x0, dtype=getattr(torch, dtype))
    opt, topt = optim.SGD([w], **options), torch.optim.SGD([tw], **options)
    for _ in range(4):
        opt.zero_grad()
        (x.matmul(w).tanh() ** 2).sum().backward()
        before, view = w.numpy(), w.reshape(-1)      # w's buffer, a view of w
        kept = np.array(before, copy=True)
        opt.step()
        topt.zero_grad()
        ((tx @ tw).tanh() ** 2).sum().backward()
        topt.step()
        np.testing.assert_array_equal(before, kept)
        np.testing.assert_array_equal(view.numpy(), w.numpy().reshape(-1))
        tol = 2e-3 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(w.numpy().astype(np.float64),
                                   tw.detach().double().numpy(), rtol=tol, atol=tol)
        assert w.dtype.name == dtype


def _torch_view(p):
    """A torch tensor sharing p's buffer (torch warns that the NumPy view is read-only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(p.numpy())


def _holders():
    """Ways to keep a reference to a parameter's buffer: an ember view follows the update (as
    PyTorch's), the others keep the old values."""
    return {
        "view": lambda p: p.reshape(-1),
        "slice": lambda p: p[0],
        "transpose": lambda p: p.t(),
        "detach": lambda p: p.detach(),
        "numpy": lambda p: p.numpy(),
        "array": lambda p: np.asarray(p),
        "memoryview": lambda p: memoryview(p.numpy()),
        "torch": _torch_view,
        "Tensor(p)": lambda p: ember.Tensor(p),
        "forward graph": lambda p: (p * p).sum(),     # its backward keeps p's array
    }


@pytest.mark.parametrize("name", list(_holders()))
def test_sgd_never_writes_into_a_shared_buffer(name):
    p = ember.tensor(np.arange(6.0).reshape(2, 3)).require_grad()
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    holder = _holders()[name](p)
    seen = holder
    if name == "forward graph":
        before = None
    elif isinstance(seen, ember.Tensor):
        before = np.array(seen.numpy(), copy=True)
    elif isinstance(seen, torch.Tensor):
        before = seen.clone()
    else:
        before = np.array(seen, copy=True)
    buffer = id(p._data)
    opt.step()
    assert id(p._data) != buffer
    np.testing.assert_array_equal(p.numpy(), np.arange(6.0).reshape(2, 3) * 0.0)  # p - 0.5 * 2p
    if name == "forward graph":      # the recorded step saved p, which the step wrote
        with pytest.raises(ember.GraphError, match="modified by an inplace operation"):
            holder.backward()        # as PyTorch's
    elif name in ("view", "slice", "transpose", "detach"):
        np.testing.assert_array_equal(seen.numpy(), _holders()[name](p).numpy())
    elif isinstance(seen, ember.Tensor):
        np.testing.assert_array_equal(seen.numpy(), before)
    elif isinstance(seen, torch.Tensor):
        assert torch.equal(seen, before)
    else:
        np.testing.assert_array_equal(np.asarray(seen), before)


def test_sgd_never_writes_into_a_users_numpy_array():
    arr = np.arange(6.0)
    p = ember.from_numpy(arr).require_grad()
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_array_equal(arr, np.arange(6.0))
    np.testing.assert_array_equal(p.numpy(), np.zeros(6))


def test_sgd_never_writes_into_a_read_only_or_borrowed_buffer():
    base = np.arange(12.0)
    for make in (lambda: ember.from_numpy(base[:6].copy()[::2]),   # a view: owns no memory
                 lambda: ember.from_numpy(np.frombuffer(bytearray(48)))):   # borrowed memory
        p = make().require_grad()
        opt = optim.SGD([p], lr=0.1)
        (p * p).sum().backward()
        buffer = id(p._data)
        opt.step()
        assert id(p._data) != buffer
        np.testing.assert_allclose(p.numpy(), np.asarray(make().numpy()) * 0.8)


@pytest.mark.parametrize("options", SGD_OPTIONS[:2], ids=["plain", "momentum"])
def test_a_view_taken_during_the_step_never_changes(monkeypatch, options):
    """Another thread may take a view of the parameter at any point of the step, also when
    nothing else referred to its buffer as the step began: that view keeps its values."""
    p = ember.tensor(np.arange(6.0)).require_grad()
    opt = optim.SGD([p], **options)
    be = p.device.backend
    real, taken = be.optim_sgd, []

    def kernel(*args):
        view = p.numpy()                # what another thread could do mid-step
        taken.append((view, view.tolist()))
        return real(*args)

    monkeypatch.setattr(be, "optim_sgd", kernel)
    for _ in range(3):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    assert [view.tolist() for view, _ in taken] == [values for _, values in taken]
    assert taken[0][1] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("options", [{"lr": 0.1}, {"lr": 0.1, "momentum": 0.9}],
                         ids=["plain", "momentum"])
def test_a_view_taken_by_another_thread_never_changes(options):
    """One thread steps; another takes views of the parameter and reads each twice. A view is
    a value: the step may rebind the parameter, never change what a view taken earlier holds."""
    p = ember.tensor(np.arange(20000.0)).require_grad()   # big enough for NumPy to release the GIL
    p.grad = ember.ones(20000, dtype=p.dtype)
    opt = optim.SGD([p], **options)
    changed, reads, steps = [0], [0], [0]
    done = threading.Event()

    def reader():
        while not done.is_set():
            v = p.reshape(100, 200).numpy()
            first = np.array(v, copy=True)
            seen = steps[0]
            while steps[0] == seen and not done.is_set():   # let a step run in between
                time.sleep(0)
            second = np.array(v, copy=True)
            reads[0] += 1
            if not np.array_equal(first, second):
                changed[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads as often as the interpreter allows
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(1000):
            opt.step()
            steps[0] += 1
    finally:
        done.set()
        thread.join()
        sys.setswitchinterval(old)
    assert reads[0] > 20
    assert changed[0] == 0, f"{changed[0]} of {reads[0]} views changed after they were taken"

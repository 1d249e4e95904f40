"""Tests of ember/nn/utils.py against torch.nn.utils: clip_grad_norm_ (every norm type, the
returned norm, the clipped gradients, parameters without gradients, non-finite norms),
clip_grad_value_, parameters_to_vector (values and gradient) and vector_to_parameters; the
gradient and parameter objects are rebound, not replaced; bad input."""

import doctest

import numpy as np
import pytest
import torch

import ember
from ember import nn
from ember.nn import utils
from oracle import assert_close, assert_unchanged, snapshot, to_torch

SHAPES = [(3, 4), (5,), (), (2, 0), (2, 3, 2)]


def _params_with_grads(rng, scale, dtype="float64"):
    """ember and torch parameters of SHAPES with the same gradients (the last has none)."""
    ours, theirs = [], []
    for i, shape in enumerate(SHAPES + [(2,)]):
        value = rng.standard_normal(shape)
        p = ember.tensor(value, dtype=dtype).require_grad()
        pt = torch.tensor(value, dtype=getattr(torch, dtype), requires_grad=True)
        if i < len(SHAPES):
            g = rng.standard_normal(shape) * scale
            (p * ember.tensor(g, dtype=dtype)).sum().backward()
            pt.grad = torch.tensor(g, dtype=getattr(torch, dtype))
        ours.append(p)
        theirs.append(pt)
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_matches_torch(rng, norm_type, max_norm, dtype):
    ours, theirs = _params_with_grads(rng, 2.0, dtype)
    grads = [p.grad for p in ours]
    total = utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    if norm_type == float("inf"):  # torch refuses the inf norm of an empty gradient; ember skips it
        theirs = [pt for pt in theirs if pt.numel()]
        ours = [p for p in ours if p.numel()]
        grads = [p.grad for p in ours]
    want = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert_close(total, want)
    for p, pt, g in zip(ours, theirs, grads):
        assert p.grad is g                     # the same gradient object, rebound
        if pt.grad is None:
            assert p.grad is None
        else:
            assert_close(p.grad, pt.grad)


def test_clip_grad_norm_single_tensor_and_no_grads():
    w = ember.tensor([3.0, 4.0]).require_grad()
    assert utils.clip_grad_norm_(w, 100.0).tolist() == torch.nn.utils.clip_grad_norm_(
        torch.tensor([3.0, 4.0], requires_grad=True), 100.0).tolist()  # no grad: 0
    (w * w).sum().backward()
    wt = torch.tensor([3.0, 4.0], requires_grad=True)
    (wt * wt).sum().backward()
    assert_close(utils.clip_grad_norm_(w, 1.0), torch.nn.utils.clip_grad_norm_(wt, 1.0))
    assert_close(w.grad, wt.grad)


def test_clip_grad_norm_nonfinite(rng):
    w = ember.tensor([1.0, 2.0]).require_grad()
    (w * ember.tensor([float("inf"), 1.0])).sum().backward()
    wt = torch.tensor([1.0, 2.0], requires_grad=True)
    (wt * torch.tensor([float("inf"), 1.0])).sum().backward()
    assert_close(utils.clip_grad_norm_([w], 1.0), torch.nn.utils.clip_grad_norm_([wt], 1.0))
    assert_close(w.grad, wt.grad)
    before = snapshot(w.grad)
    with pytest.raises(ember.InvalidParameterError, match=r"clip_grad_norm_: the total norm of "
                       r"order 2.0 of the gradients is nan; expected a finite norm"):
        utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    assert_unchanged([w.grad], before)
    with pytest.raises(RuntimeError):
        torch.nn.utils.clip_grad_norm_([wt], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("clip", [0.0, 0.5, 10.0])
def test_clip_grad_value_matches_torch(rng, clip):
    ours, theirs = _params_with_grads(rng, 2.0)
    assert utils.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(theirs, clip)
    for p, pt in zip(ours, theirs):
        if pt.grad is not None:
            assert_close(p.grad, pt.grad)


def test_parameters_to_vector_and_back_match_torch(rng):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for p, pt in zip(model.parameters(), tmodel.parameters()):
            pt.copy_(to_torch(p))
    vec = utils.parameters_to_vector(model.parameters())
    tvec = torch.nn.utils.parameters_to_vector(tmodel.parameters())
    assert_close(vec, tvec)
    seed = rng.standard_normal(vec.shape)
    (vec * ember.tensor(seed, dtype="float32")).sum().backward()
    (tvec * torch.tensor(seed, dtype=torch.float32)).sum().backward()
    for p, pt in zip(model.parameters(), tmodel.parameters()):
        assert_close(p.grad, pt.grad)
    new = rng.standard_normal(vec.shape).astype(np.float32)
    params = model.parameters()
    assert utils.vector_to_parameters(ember.tensor(new), params) is None
    torch.nn.utils.vector_to_parameters(torch.tensor(new), tmodel.parameters())
    for p, q, pt in zip(params, model.parameters(), tmodel.parameters()):
        assert p is q and p.is_leaf and p.is_require_grad()
        assert_close(p, pt.detach())
    x = rng.standard_normal((5, 3)).astype(np.float32)
    assert_close(model(ember.tensor(x)), tmodel(torch.tensor(x)).detach())


def test_bad_input_raises_typed_errors():
    w = ember.ones(3).require_grad()
    vec = ember.zeros(4)
    before = snapshot(w, vec)
    cases = [
        (lambda: utils.clip_grad_norm_(3, 1.0), ember.InvalidParameterError,
         r"clip_grad_norm_: parameters must be a tensor or an iterable"),
        (lambda: utils.clip_grad_norm_([w, "x"], 1.0), ember.InvalidParameterError,
         r"parameter 1 is a str"),
        (lambda: utils.clip_grad_norm_([w], "a"), ember.InvalidParameterError,
         r"max_norm must be a number"),
        (lambda: utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=1),
         ember.InvalidParameterError, r"error_if_nonfinite must be a bool"),
        (lambda: utils.clip_grad_value_([w], -1.0), ember.InvalidParameterError,
         r"clip_value is -1.0; expected >= 0"),
        (lambda: utils.parameters_to_vector([]), ember.InvalidParameterError, r"is empty"),
        (lambda: utils.vector_to_parameters([1.0], [w]), ember.InvalidParameterError,
         r"vec must be a Tensor"),
        (lambda: utils.vector_to_parameters(vec.reshape(2, 2), [w]), ember.ShapeMismatchError,
         r"vec has shape \(2, 2\); expected a 1-D tensor"),
        (lambda: utils.vector_to_parameters(vec, [w]), ember.ShapeMismatchError,
         r"vec has 4 elements; the parameters have 3"),
    ]
    for fn, err, pattern in cases:
        with pytest.raises(err, match=pattern):
            fn()
    assert_unchanged([w, vec], before)


def test_module_doctests():
    result = doctest.testmod(utils)
    assert result.attempted > 10 and result.failed == 0

"""SparseAdam (ember's dense fallback) against torch.optim.SparseAdam: an embedding trained with
``nn.Embedding(sparse=True)`` in PyTorch and a dense gradient in ember; 50 steps of a ReLU MLP
(whose gradients have exact zeros) with PyTorch's gradients made sparse; a state saved by
PyTorch resumed by ember; torch's state_dict layout; typed errors."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember import InvalidParameterError, optim
from grads_oracle import Pair

E, T = optim.SparseAdam, torch.optim.SparseAdam
CASES = [
    ({}, None),
    ({"lr": 0.05}, None),
    ({"lr": 0.05, "betas": (0.5, 0.8), "eps": 1e-3}, None),
    ({"lr": 0.05, "betas": (0.0, 0.0)}, None),
    ({"lr": 0.02, "maximize": True}, None),
    ({"lr": 0.05}, [([0, 2, 4], {"betas": (0.8, 0.99)}), ([1, 3, 5], {"lr": 0.01,
                                                                       "eps": 1e-4})]),
]


def _relu_pair(kwargs, groups):
    return Pair(E, T, kwargs, groups, act=torch.nn.ReLU, sparse_grads=True)


@pytest.mark.parametrize("kwargs,groups", CASES)
def test_mlp_50_steps_match_torch(kwargs, groups):
    pair = _relu_pair(kwargs, groups)
    zeros = 0
    for _ in range(50):
        pair.step()
        zeros += sum(int((p.grad == 0).sum()) for p in pair.eparams)
    assert zeros > 0  # untouched entries were there to skip
    pair.assert_close(1e-10)


@pytest.mark.parametrize("kwargs", [{"lr": 0.05}, {"lr": 0.05, "maximize": True,
                                                   "betas": (0.5, 0.9), "eps": 1e-4}])
def test_embedding_sparse_in_torch_dense_in_ember(kwargs):
    """The rows a batch looks up move, as in PyTorch with a sparse gradient; the others (and
    their moments) stay."""
    rng = np.random.default_rng(0)
    weight, head = rng.standard_normal((7, 3)), rng.standard_normal((3, 2))
    batches = [rng.integers(0, 7, size=4) for _ in range(50)]
    temb = torch.nn.Embedding(7, 3, sparse=True).double()
    eemb = et.nn.Embedding(7, 3).double()
    with torch.no_grad():
        temb.weight.copy_(torch.tensor(weight))
    with et.no_grad():
        eemb.weight.copy_(et.tensor(weight))
    th, eh = torch.tensor(head, requires_grad=True), et.tensor(head, requires_grad=True)
    topts = [T(list(temb.parameters()), **kwargs), torch.optim.Adam([th], lr=0.05)]
    eopts = [et.optim.SparseAdam(list(eemb.parameters()), **kwargs),
             et.optim.Adam([eh], lr=0.05)]
    for idx in batches:
        for o in topts + eopts:
            o.zero_grad()
        (temb(torch.tensor(idx)) @ th).tanh().pow(2).sum().backward()
        (eemb(et.tensor(idx)) @ eh).tanh().pow(2).sum().backward()
        for o in topts + eopts:
            o.step()
    np.testing.assert_allclose(eemb.weight.detach().numpy(), temb.weight.detach().numpy(),
                               rtol=1e-10, atol=1e-10)
    tstate = topts[0].state_dict()["state"][0]
    estate = eopts[0].state_dict()["state"][0]
    assert estate["step"] == tstate["step"] == 50
    for k in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(estate[k].numpy(), tstate[k].numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_untouched_rows_keep_values_and_moments():
    w = ember.tensor([[1.0, 2.0], [3.0, 4.0]]).require_grad()
    opt = E([w], lr=0.1)
    w.grad = ember.tensor([[0.5, -0.5], [0.0, 0.0]])
    opt.step()
    assert w.tolist()[1] == [3.0, 4.0]
    st = opt.state_dict()["state"][0]
    assert st["exp_avg"].tolist()[1] == [0.0, 0.0] and st["exp_avg_sq"].tolist()[1] == [0.0, 0.0]
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    to = T([t], lr=0.1)
    t.grad = torch.tensor([[0.5, -0.5], [0.0, 0.0]]).to_sparse()
    to.step()
    np.testing.assert_allclose(w.numpy(), t.detach().numpy(), rtol=1e-7)


@pytest.mark.parametrize("kwargs,groups", [({"lr": 0.05}, None), CASES[-1]])
def test_state_saved_by_torch_resumes_in_ember(kwargs, groups):
    pair = _relu_pair(kwargs, groups)
    pair.step(5)
    pair.resume_from_torch(E, kwargs, groups)
    pair.step(10)
    pair.assert_close(1e-10)


def test_state_dict_layout_is_torchs():
    pair = _relu_pair({"lr": 0.05}, None)
    pair.step(3)
    esd, tsd = pair.eopt.state_dict(), pair.topt.state_dict()
    assert list(esd["state"]) == list(tsd["state"])
    for i, ts in tsd["state"].items():
        assert list(esd["state"][i]) == list(ts) == ["step", "exp_avg", "exp_avg_sq"]
        assert esd["state"][i]["step"] == ts["step"] == 3
        for k in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(esd["state"][i][k].numpy(), ts[k].numpy(), rtol=1e-10,
                                       atol=1e-14)
    assert esd["param_groups"] == tsd["param_groups"]


def test_defaults_are_torchs():
    assert E([ember.ones(2).require_grad()]).defaults == \
        T([torch.ones(2, requires_grad=True)]).defaults


@pytest.mark.parametrize("kwargs,match", [
    ({"lr": -1.0}, r"SparseAdam: lr is -1.0; expected a finite number >= 0"),
    ({"eps": -1e-8}, r"eps is -1e-08"),
    ({"betas": (1.0, 0.5)}, r"betas is 1.0; expected numbers in \[0, 1\)"),
    ({"betas": (0.5, 1.0)}, r"betas\[1\] is 1.0"),
    ({"betas": (-0.1, 0.5)}, r"betas is -0.1"),
    ({"betas": 0.9}, r"expected a pair"),
    ({"maximize": 1}, r"maximize must be a bool"),
])
def test_bad_arguments(kwargs, match):
    w = ember.ones(2).require_grad()
    with pytest.raises(InvalidParameterError, match=match) as info:
        E([w], **kwargs)
    assert info.value.param in kwargs


def test_exported_as_torch():
    assert et.optim.SparseAdam is optim.SparseAdam and "SparseAdam" in optim.__all__
    assert issubclass(optim.SparseAdam, optim.Optimizer)

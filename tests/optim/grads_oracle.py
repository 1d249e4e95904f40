"""Runs an ember optimizer beside torch's on one small MLP with the *same* gradients: PyTorch's
model computes each step's gradients at its own parameters, both optimizers get them, and the
parameters are compared; or ember's side resumes from the state PyTorch saved."""

import io

import numpy as np
import torch

import ember
import ember.torch as et

# 2-D weights of several shapes (wide, tall, a single row) and their biases
LAYERS = [(3, 5), (5, 4), (4, 2)]


def torch_mlp(seed=0, bias=True, dtype=torch.float64, act=torch.nn.Tanh):
    """A small MLP with PyTorch's initial weights (seeded)."""
    torch.manual_seed(seed)
    layers = []
    for i, (fan_in, fan_out) in enumerate(LAYERS):
        layers.append(torch.nn.Linear(fan_in, fan_out, bias=bias))
        if i < len(LAYERS) - 1:
            layers.append(act())
    return torch.nn.Sequential(*layers).to(dtype)


def mlp_data(seed=1, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(8, 3, generator=g, dtype=dtype),
            torch.randn(8, 2, generator=g, dtype=dtype))


def groups_of(params, groups):
    """Param groups over ``params``: ``groups`` is None (one list) or (indices, options) pairs."""
    if groups is None:
        return list(params)
    return [dict(options, params=[params[i] for i in idx]) for idx, options in groups]


def ember_copies(tparams, dtype="float64"):
    return [ember.tensor(p.detach().double().numpy()).cast(dtype).require_grad()
            for p in tparams]


class Pair:
    """A torch MLP and its optimizer, and ember copies of its parameters with theirs."""

    def __init__(self, ecls, tcls, kwargs, groups=None, bias=True, dtype="float64",
                 act=torch.nn.Tanh, sparse_grads=False, tkwargs=None):
        tdt = getattr(torch, dtype)
        self.model = torch_mlp(bias=bias, dtype=tdt, act=act)
        self.x, self.y = mlp_data(dtype=tdt)
        self.tparams = list(self.model.parameters())
        self.eparams = ember_copies(self.tparams, dtype)
        self.topt = tcls(groups_of(self.tparams, groups), **(kwargs if tkwargs is None else
                                                              tkwargs))
        self.eopt = ecls(groups_of(self.eparams, groups), **kwargs)
        self.dtype, self.sparse_grads = dtype, sparse_grads

    def step(self, n=1):
        for _ in range(n):
            self.topt.zero_grad()
            self.eopt.zero_grad()
            torch.nn.functional.mse_loss(self.model(self.x), self.y).backward()
            for e, t in zip(self.eparams, self.tparams):
                e.grad = ember.tensor(t.grad.double().numpy()).cast(self.dtype)
                if self.sparse_grads:  # only the nonzero entries, as SparseAdam's docs suggest
                    t.grad = t.grad.to_sparse()
            self.topt.step()
            self.eopt.step()

    def assert_close(self, tol):
        for e, t in zip(self.eparams, self.tparams):
            assert e.dtype.name == self.dtype and e.shape == tuple(t.shape)
            np.testing.assert_allclose(e.numpy().astype(np.float64), t.detach().double().numpy(),
                                       rtol=tol, atol=tol)

    def resume_from_torch(self, ecls, kwargs, groups=None):
        """A fresh ember optimizer over copies of torch's current parameters, with the
        state_dict torch saved (``torch.save``) read by ``ember.torch.load`` and loaded: it
        replaces this pair's ember side."""
        buffer = io.BytesIO()
        torch.save(self.topt.state_dict(), buffer)
        buffer.seek(0)
        self.eparams = ember_copies(self.tparams, self.dtype)
        self.eopt = ecls(groups_of(self.eparams, groups), **kwargs)
        self.eopt.load_state_dict(et.load(buffer))

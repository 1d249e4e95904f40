"""Running a case of layer_cases.py the same way on PyTorch and on ember.torch: inputs from the
same NumPy arrays, weights moved through ``state_dict``, outputs flattened to arrays."""

import numpy as np
import torch

import ember.torch as et

from layer_cases import Const


def lib_tensor(lib, array, grad=False):
    """``array`` as a tensor of ``lib`` (torch or ember.torch), a leaf wanting a gradient when
    ``grad``."""
    array = np.array(array)
    t = torch.from_numpy(array) if lib is torch else et.tensor(array)
    return t.requires_grad_() if grad else t


def _cast(array, dtype):
    array = np.asarray(array)
    return array.astype(dtype) if array.dtype.kind == "f" else array


def make_inputs(lib, inputs, grad, dtype="float64"):
    """The case's inputs as tensors of ``lib``, floats as ``dtype``; returns (args, leaves):
    the float inputs are leaves (wanting gradients when ``grad``)."""
    leaves = []

    def one(a):
        if isinstance(a, tuple):
            return tuple(one(b) for b in a)
        if isinstance(a, Const):
            return lib_tensor(lib, _cast(a.array, dtype))
        t = lib_tensor(lib, _cast(a, dtype), grad)
        leaves.append(t)
        return t
    return tuple(one(a) for a in inputs), leaves


def flat(out):
    """The tensors of a module's output (tuples, lists and named tuples walked)."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [out] if out is not None else []


def numpy_of(t):
    return t.detach().numpy() if t.requires_grad else t.numpy()


def state_to_ember(state):
    return {k: et.tensor(v.detach().numpy().copy()) for k, v in state.items()}


def state_to_torch(state):
    return {k: torch.from_numpy(np.array(v.detach().numpy())) for k, v in state.items()}


def materialize(case, module, lib, dtype="float64", seed=0):
    """A lazy module's first call (which gives its parameters their shapes)."""
    if case.lazy:
        args, _ = make_inputs(lib, case.inputs(np.random.default_rng(seed)), False, dtype)
        with (torch.no_grad() if lib is torch else et.no_grad()):
            module(*args)


def build_pair(case):
    """(torch module, ember.torch module) in float64, in the case's mode, with the ember one
    holding the torch one's state."""
    torch.manual_seed(0)
    tm = case.build(torch.nn).double()
    em = case.build(et.nn).double()
    materialize(case, tm, torch)
    materialize(case, em, et)
    tm.train(case.train)
    em.train(case.train)
    em.load_state_dict(state_to_ember(tm.state_dict()))
    return tm, em

"""The names torch 2.13 keeps only as removed stubs (``torch.eig``, ``Tensor.lstsq``,
``Tensor.reinforce`` ...) are left out of the surface count (benchmarks/torch_surface.py):
each one only raises an error pointing elsewhere, and the rule names exactly these."""

import importlib.util
import os

import pytest
import torch

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "benchmarks", "torch_surface.py")
_spec = importlib.util.spec_from_file_location("torch_surface", _SCRIPT)
torch_surface = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(torch_surface)

REMOVED = {"torch": ("eig", "symeig", "lstsq", "solve", "matrix_rank"),
           "torch.Tensor": ("eig", "symeig", "lstsq", "solve", "reinforce")}


def _rule():
    return next(rule for rule in torch_surface.EXCLUDED if rule[0].startswith("removed"))


def test_the_rule_names_exactly_the_removed_stubs():
    _, where, patterns = _rule()
    expected = {f"{name}@{path}" for path, names in REMOVED.items() for name in names}
    assert set(patterns) == expected
    assert set(where) == set(REMOVED)


@pytest.mark.parametrize("path,name", [(p, n) for p, names in REMOVED.items() for n in names])
def test_each_stub_only_raises_removed(path, name):
    fn = getattr(torch if path == "torch" else torch.Tensor, name)
    args = (torch.eye(2), torch.eye(2)) if name in ("lstsq", "solve") else (torch.eye(2),)
    if name == "reinforce":
        args = (torch.eye(2), 1.0)
    with pytest.raises(RuntimeError, match="removed"):
        fn(*args)
    reason = torch_surface._exclusion(path, name, fn)
    assert reason is not None and reason.startswith("removed")

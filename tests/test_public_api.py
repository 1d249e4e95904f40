"""Every public function of ember, called with a first argument that is not a Tensor (and with
other arguments of several kinds), raises only ember's typed errors: module-level functions
are the Tensor methods themselves, and each checks its first argument as a method would."""

import inspect

import pytest

import ember
import ember.nn.functional as F
from ember import EmberError

# set the process-wide generator and default device: called on their own (manual_seed below)
STATEFUL = {"manual_seed", "set_default_device"}

# read a file named by their first argument: a path that does not exist is the OS's
# FileNotFoundError, as open() and torch.load raise (docs/training.md)
READERS = {"ember.load"}

NOT_TENSORS = [1, -1, False, "a", None, 0.5, [1, 2], (1,), object()]


def _public_functions(module, prefix):
    out = {}
    for name in getattr(module, "__all__", dir(module)):
        if name.startswith("_") or name in STATEFUL:
            continue
        f = getattr(module, name)
        if inspect.isfunction(f) and f.__module__.startswith("ember") and _positional(f):
            out[prefix + name] = f
    return out


def _positional(f):
    return [p for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]


def _required_positional(f):
    return sum(1 for p in _positional(f) if p.default is p.empty and p.kind != p.VAR_POSITIONAL)


FUNCTIONS = {**_public_functions(ember, "ember."), **_public_functions(F, "F."),
             **_public_functions(ember.vision, "ember.vision.")}


def test_the_list_covers_the_public_surface():
    assert len(FUNCTIONS) > 150
    for name in ("ember.split", "ember.unbind", "ember.chunk", "ember.split_with_sizes",
                 "ember.promote_types", "ember.cat", "ember.exp", "F.pad", "ember.einsum"):
        assert name in FUNCTIONS


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_non_tensor_first_argument_raises_only_typed_errors(name):
    f = FUNCTIONS[name]
    n = max(_required_positional(f), 1)
    with ember.set_grad_enabled(ember.grad_enabled()):  # nothing below may change the mode
        for first in NOT_TENSORS:
            for rest in (1, [2, 2], ember.ones(2, 2)):
                args = [first] + [rest] * (n - 1)
                try:
                    f(*args)
                except EmberError:
                    pass
                except FileNotFoundError:
                    if name not in READERS:
                        raise
                except Exception as exc:  # noqa: BLE001 - the point of the test
                    pytest.fail(f"{name}{tuple(map(repr, args))} raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("call, message", [
    (lambda: ember.split(1, [2, 2]), "split: self must be a Tensor, got int"),
    (lambda: ember.unbind(-1), "unbind: self must be a Tensor, got int"),
    (lambda: ember.chunk(False, 1), "chunk: self must be a Tensor, got bool"),
    (lambda: ember.split_with_sizes("a", (1,)), "split_with_sizes: self must be a Tensor, got str"),
    (lambda: ember.promote_types(2, 0.5), "promote_types: a 2 is not an ember dtype"),
])
def test_the_reported_calls(call, message):
    with pytest.raises(EmberError) as info:
        call()
    assert str(info.value).startswith(message)


def test_manual_seed_refuses_non_ints_with_typed_errors():
    for bad in ("a", None, 0.5, [1, 2], object()):
        with pytest.raises(EmberError):
            ember.manual_seed(bad)

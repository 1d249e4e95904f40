"""Every function of ember.torch, called with a first argument that is not a tensor (and other
arguments of several kinds), raises only ember's typed errors, as the functions of ember do
(tests/test_public_api.py)."""

import inspect

import pytest

import ember.torch as et
from ember import EmberError

# change process-wide state, or read and write files named by their first argument
STATEFUL = {"manual_seed", "set_default_dtype", "set_default_device", "set_printoptions",
            "load", "save", "seed", "set_rng_state", "use_deterministic_algorithms",
            "set_num_threads", "set_num_interop_threads", "compile",
            "set_deterministic_debug_mode", "set_float32_matmul_precision", "set_warn_always"}
NOT_TENSORS = [1, -1, False, "a", None, 0.5, [1, 2], (1,), object()]


def _arity(f):
    """The number of positional arguments ``f`` requires (at least 1), None if it takes none."""
    params = inspect.signature(getattr(f, "implementation", f)).parameters.values()
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                  p.VAR_POSITIONAL)]
    if (all(p.kind == p.VAR_POSITIONAL for p in positional)  # an alias: (*args, **kwargs)
            or any(p.kind == p.KEYWORD_ONLY and p.default is p.empty for p in params)):
        return None
    return max(sum(1 for p in positional if p.default is p.empty
                   and p.kind != p.VAR_POSITIONAL), 1)


FUNCTIONS = {name: getattr(et, name) for name in sorted(et._tensor.functions)
             if name not in STATEFUL and inspect.isfunction(getattr(et, name))
             and _arity(getattr(et, name)) is not None}


def test_the_list_covers_the_namespace():
    assert len(FUNCTIONS) > 300
    for name in ("add", "div", "argmax", "topk", "index_add", "mm", "std", "lgamma", "cat"):
        assert name in FUNCTIONS


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_non_tensor_first_argument_raises_only_typed_errors(name):
    f = FUNCTIONS[name]
    n = _arity(f)
    with et.set_grad_enabled(et.is_grad_enabled() if hasattr(et, "is_grad_enabled") else True):
        for first in NOT_TENSORS:
            for rest in (1, [2, 2], et.ones(2, 2)):
                args = [first] + [rest] * (n - 1)
                try:
                    f(*args)
                except EmberError:
                    pass
                except Exception as exc:  # noqa: BLE001 - the point of the test
                    pytest.fail(f"{name}{tuple(map(repr, args))} raised {type(exc).__name__}: "
                                f"{exc}")

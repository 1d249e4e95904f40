"""Array API libraries as devices (``xp:<library>``): names, dtypes, host routes and each
library's own kernels. The backend-independent suite runs on them as whole passes
(``EMBER_DEVICE=xp:array_api_strict``); these checks name their devices themselves."""

import numpy as np
import pytest

import ember
from ember.backends.xp.libraries import installed
from ember.errors import InvalidParameterError, KindError

pytestmark = pytest.mark.once
STRICT, JAX = "xp:array_api_strict", "xp:jax"
needs = {name: pytest.mark.skipif(name[3:] not in installed(), reason=f"{name[3:]} not installed")
         for name in (STRICT, JAX)}


def test_an_xp_device_is_named_by_its_library():
    d = ember.Device("XP:JAX")
    assert (d.name, d.index) == ("xp:jax", None)
    assert ember.Device("xp:array_api_strict").type == "cpu"  # host memory
    assert str(ember.Device("xp:array_api_strict")) == "xp:array_api_strict"
    with pytest.raises(InvalidParameterError, match="'xp:nosuch' names no Array API library"):
        ember.Device("xp:nosuch")
    with pytest.raises(InvalidParameterError, match="'xp:<library>'"):
        ember.Device("xp")


@needs[JAX]
def test_the_type_of_a_jax_device_is_its_platform():
    import jax
    platform = jax.default_backend()  # "cpu" here; a GPU is PyTorch's "cuda"
    assert ember.Device("xp:jax").type == {"gpu": "cuda"}.get(platform, platform)
    assert ember.ones(2, device="xp:jax").device.type == ember.Device("xp:jax").type


@needs[STRICT]
def test_values_and_gradients_on_array_api_strict():
    x = ember.tensor([[1.0, -2.0], [3.0, 0.5]], device=STRICT, requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    xn = np.array([[1.0, -2.0], [3.0, 0.5]], dtype=np.float32)
    assert type(x._data).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(y.item(), (np.exp(xn) * xn).sum(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.tolist(), np.exp(xn) * (1 + xn), rtol=1e-6)
    assert x.grad.device == ember.Device(STRICT)


@needs[STRICT]
def test_a_dtype_the_library_lacks_is_a_typed_error_naming_the_device():
    with pytest.raises(KindError, match="float16 is not a dtype of device xp:array_api_strict"):
        ember.zeros(2, dtype=ember.float16, device=STRICT)


@needs[STRICT]
def test_random_draws_come_from_the_cpu_generator():
    ember.manual_seed(7)
    a = ember.randn(4, device=STRICT)
    ember.manual_seed(7)
    b = ember.randn(4)
    assert a.device == ember.Device(STRICT) and a.tolist() == b.tolist()


@needs[STRICT]
def test_tensors_move_between_cpu_and_an_xp_device():
    x = ember.arange(6).reshape(2, 3)
    y = x.to(STRICT)
    assert y.device == ember.Device(STRICT) and y.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert y.to("cpu").device == ember.Device("cpu") and (y.to("cpu") == x).all().item()


@needs[JAX]
def test_jax_computes_in_64_bits_and_scatters_with_at():
    x = ember.zeros(5, dtype=ember.float64, device=JAX)
    assert x._data.dtype == np.float64
    idx = ember.tensor([0, 2, 2, 4], device=JAX)
    out = x.scatter(0, idx, ember.ones(4, dtype=ember.float64, device=JAX), "add")
    assert out.tolist() == [1.0, 0.0, 2.0, 0.0, 1.0]
    assert x.tolist() == [0.0] * 5  # JAX's arrays are immutable: the input is unchanged


@needs[JAX]
def test_jax_item_assignment_and_torch_style_in_place_ops():
    import ember.torch as torch
    t = torch.zeros(3, device=JAX)
    t.add_(2)
    t[1] = 5
    assert t.tolist() == [2.0, 5.0, 2.0] and str(t.device) == JAX


@needs[JAX]
def test_erf_is_jax_own():
    import math
    x = ember.tensor([-1.5, 0.0, 0.3, 2.0], dtype=ember.float64, device=JAX)
    assert x.erf().tolist() == pytest.approx([math.erf(v) for v in (-1.5, 0.0, 0.3, 2.0)],
                                             rel=1e-15, abs=1e-300)


@needs[JAX]
def test_the_docs_example_runs():
    import doctest
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "devices.md")
    text = open(path).read()
    section = text[text.index("## Array API libraries as devices"):]
    section = section[:section.index("\n## ", 1)]
    test = doctest.DocTestParser().get_doctest(section, {"ember": ember}, "devices.md", path, 0)
    assert test.examples
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.failed == 0


def test_a_result_too_large_for_jax_is_the_typed_error():
    # JAX has no views: expand allocates, so it checks the size first (XLA aborts the process
    # on a result past memory) ...
    x = ember.ones(1, device=JAX)
    with pytest.raises(ember.InvalidParameterError, match=r"^expand: a result of shape "
                       r"\(1099511627776,\) is too large to allocate \(4398046511104 bytes, "
                       "more than the machine's"):
        x.expand(2 ** 40)
    assert x.expand(3).tolist() == [1.0, 1.0, 1.0]
    # ... and XLA's RESOURCE_EXHAUSTED, where an allocation fails all the same, is the same error
    exhausted = type("JaxRuntimeError", (RuntimeError,), {})(
        "RESOURCE_EXHAUSTED: Out of memory allocating 4398046511104 bytes.")
    found = x.device.backend.allocation_failed(exhausted, "expand", (2 ** 40,))
    assert isinstance(found, ember.InvalidParameterError)
    assert str(found).startswith("expand: a result of shape (1099511627776,) is too large to "
                                 "allocate (not enough memory)")
    other = RuntimeError("INVALID_ARGUMENT: something else")
    assert x.device.backend.allocation_failed(other, "expand", (2,)) is other

"""ember/torch/info.py against torch 2.13: finfo, iinfo, can_cast, the grad-mode and
determinism queries, matmul precision, threads, warnings and the small predicates."""

import os
import warnings

import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError

FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
ALL = FLOATS + INTS + ["bool"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name):
    e, t = et.finfo(getattr(et, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(e, attr) == getattr(t, attr), attr
    assert repr(e) == repr(t)


def test_finfo_default_and_errors():
    assert et.finfo().dtype == torch.finfo().dtype == "float32"
    et.set_default_dtype(et.float64)
    try:
        assert et.finfo().dtype == "float64"
    finally:
        et.set_default_dtype(et.float32)
    for bad in ("int32", "bool"):
        with pytest.raises(KindError):
            et.finfo(getattr(et, bad))
        with pytest.raises(TypeError):
            torch.finfo(getattr(torch, bad))
    with pytest.raises(KindError):
        et.finfo("float32")
    assert et.finfo(et.float32) == et.finfo(et.float32) != et.finfo(et.float64)


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name):
    e, t = et.iinfo(getattr(et, name)), torch.iinfo(getattr(torch, name))
    assert (e.bits, e.min, e.max, e.dtype) == (t.bits, t.min, t.max, t.dtype)
    assert repr(e) == repr(t)


def test_iinfo_errors():
    for bad in ("float32", "bool", "complex64"):
        with pytest.raises(KindError):
            et.iinfo(getattr(et, bad))
        with pytest.raises(TypeError):
            torch.iinfo(getattr(torch, bad))


@pytest.mark.parametrize("a", ALL)
@pytest.mark.parametrize("b", ALL)
def test_can_cast(a, b):
    assert et.can_cast(getattr(et, a), getattr(et, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


def test_grad_mode_queries():
    assert et.is_grad_enabled() is torch.is_grad_enabled() is True
    with et.no_grad():
        assert et.is_grad_enabled() is False
        with et.enable_grad():
            assert et.is_grad_enabled() is True
    with et.inference_mode():
        assert et.is_grad_enabled() is False
    et.set_grad_enabled(False)
    try:
        assert et.is_grad_enabled() is False
    finally:
        et.set_grad_enabled(True)
    assert et.is_anomaly_enabled() is torch.is_anomaly_enabled() is False
    assert et.is_anomaly_check_nan_enabled() is torch.is_anomaly_check_nan_enabled()


def test_deterministic_algorithms():
    assert et.are_deterministic_algorithms_enabled() is False
    assert et.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode() == 0
    try:
        for mode in ("warn", 1, "error", 2, "default", 0):
            et.set_deterministic_debug_mode(mode)
            torch.set_deterministic_debug_mode(mode)
            assert et.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
            assert et.are_deterministic_algorithms_enabled() == \
                torch.are_deterministic_algorithms_enabled()
            assert et.is_deterministic_algorithms_warn_only_enabled() == \
                torch.is_deterministic_algorithms_warn_only_enabled()
        et.use_deterministic_algorithms(True, warn_only=True)
        assert et.get_deterministic_debug_mode() == 1
    finally:
        et.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)
    for bad in ("loud", 3, True, None):
        with pytest.raises(InvalidParameterError):
            et.set_deterministic_debug_mode(bad)
    with pytest.raises(InvalidParameterError):
        et.use_deterministic_algorithms(1)


def test_float32_matmul_precision():
    assert et.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == \
        "highest"
    try:
        for p in ("high", "medium", "highest"):
            et.set_float32_matmul_precision(p)
            assert et.get_float32_matmul_precision() == p
    finally:
        et.set_float32_matmul_precision("highest")
    with pytest.raises(InvalidParameterError):  # PyTorch ignores it (a warning): ember refuses
        et.set_float32_matmul_precision("low")
    assert et.get_float32_matmul_precision() == "highest"


def test_threads():
    n = et.get_num_interop_threads()
    assert isinstance(n, int) and n >= 1
    et.init_num_threads()
    with pytest.raises(InvalidParameterError):
        et.set_num_interop_threads(0)
    with pytest.raises(InvalidParameterError):
        et.set_num_interop_threads("2")


def test_warn_always():
    assert et.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    before = list(warnings.filters)
    et.set_warn_always(True)
    try:
        assert et.is_warn_always_enabled() is True
        assert len(warnings.filters) == len(before) + 1
        et.set_warn_always(True)  # once only
        assert len(warnings.filters) == len(before) + 1
    finally:
        et.set_warn_always(False)
    assert et.is_warn_always_enabled() is False and warnings.filters == before
    with pytest.raises(InvalidParameterError):
        et.set_warn_always(1)


def test_small_predicates():
    assert et.is_vulkan_available() is torch.is_vulkan_available() is False
    assert et.set_flush_denormal(False) in (True, False)
    path = et.get_file_path("a", "b.py")
    assert path == os.path.join(os.path.dirname(et.__file__), "a", "b.py")
    with pytest.raises(InvalidParameterError):
        et.set_flush_denormal("yes")

"""ember/torch/runtime.py and ember/torch/cpu.py against torch 2.13: the exception classes,
the __torch_function__ guards, classproperty, the build and environment queries, the device
and mode queries, set_anomaly_enabled and to_dlpack."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import EmberError, InvalidParameterError, KindError


@pytest.mark.parametrize("name", ["AcceleratorError", "OutOfMemoryError", "FatalError",
                                  "JITException"])
def test_exception_classes_subclass_what_torch_subclasses(name):
    ours, theirs = getattr(et, name), getattr(torch, name)
    builtin_bases = [b for b in theirs.__mro__ if b.__module__ == "builtins"]
    for base in builtin_bases:
        assert issubclass(ours, base)
    assert issubclass(ours, RuntimeError) == issubclass(theirs, RuntimeError)
    assert issubclass(ours, EmberError)
    with pytest.raises(theirs.__mro__[1]):
        raise ours("boom")


@pytest.mark.parametrize("name", ["DisableTorchFunction", "DisableTorchFunctionSubclass"])
def test_disable_torch_function_context_managers(name):
    assert et.runtime.is_torch_function_enabled() is True
    with getattr(et, name)() as guard:
        assert et.runtime.is_torch_function_enabled() is False
        with getattr(et, name)():
            assert et.runtime.is_torch_function_enabled() is False
        assert et.runtime.is_torch_function_enabled() is False
        assert (et.ones(2) + 1).tolist() == [2.0, 2.0]
    assert guard is not None
    assert et.runtime.is_torch_function_enabled() is True
    with getattr(torch, name)():  # torch's is a context manager too
        pass


def test_classproperty_as_torch():
    def make(module):
        class Box:
            base = 3

            @module.classproperty
            def doubled(cls):
                return cls.base * 2
        return Box
    ours, theirs = make(et), make(torch)
    assert ours.doubled == theirs.doubled == 6
    assert ours().doubled == theirs().doubled == 6

    class Sub(ours):
        base = 5
    assert Sub.doubled == 10


def test_build_and_environment_queries_as_torch():
    assert et.compiled_with_cxx11_abi() == torch.compiled_with_cxx11_abi()
    assert (et.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12()
            == torch.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12())
    assert et.prepare_multiprocessing_environment("/tmp") is None
    assert torch.prepare_multiprocessing_environment("/tmp") is None
    assert et.thread_safe_generator() is None and torch.thread_safe_generator() is None
    with pytest.raises(InvalidParameterError):
        et.prepare_multiprocessing_environment(3)


@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_get_device_is_distributed_is_inference(shape):
    x, t = et.zeros(shape), torch.zeros(shape)
    assert et.get_device(x) == torch.get_device(t) == -1
    assert et.is_distributed(x) == torch.is_distributed(t) is False
    assert et.is_inference(x) == torch.is_inference(t) is False
    with pytest.raises(KindError):
        et.get_device([1.0])


def test_get_device_module():
    assert et.get_device_module("cpu") is et.cpu
    assert et.get_device_module(et.device("cpu")) is et.cpu
    if not et.accelerator.is_available():
        assert et.get_device_module() is et.cpu
        assert torch.get_device_module() is torch.cpu
    assert et.cpu.is_available() == torch.cpu.is_available()
    assert et.cpu.device_count() == torch.cpu.device_count()
    assert et.cpu.current_device() == torch.cpu.current_device()
    assert et.cpu.synchronize() is None
    assert et.cpu.current_stream() == et.Stream("cpu")
    with pytest.raises(InvalidParameterError):
        et.get_device_module("xpu")
    with pytest.raises(InvalidParameterError):
        et.get_device_module(3.0)


def test_is_inference_mode_enabled_as_torch():
    assert et.is_inference_mode_enabled() == torch.is_inference_mode_enabled() is False
    with et.inference_mode(), torch.inference_mode():
        assert et.is_inference_mode_enabled() == torch.is_inference_mode_enabled() is True
        with et.inference_mode(False), torch.inference_mode(False):
            assert (et.is_inference_mode_enabled() == torch.is_inference_mode_enabled()
                    is False)
        assert et.is_inference_mode_enabled() is True
        w = et.ones(2, requires_grad=True)
        assert (w * 2).requires_grad is False
    assert et.is_inference_mode_enabled() is False

    @et.inference_mode()
    def inside():
        return et.is_inference_mode_enabled()
    assert inside() is True


def test_set_anomaly_enabled_as_torch():
    try:
        for flag in (True, False):
            assert et.set_anomaly_enabled(flag) is None
            torch.set_anomaly_enabled(flag)
            assert et.is_anomaly_enabled() == torch.is_anomaly_enabled() == flag
        et.set_anomaly_enabled(True, check_nan=False)
        assert et.is_anomaly_check_nan_enabled() is False
    finally:
        et.set_anomaly_enabled(False)
        torch.set_anomaly_enabled(False)
    assert et.is_anomaly_check_nan_enabled() is True
    with pytest.raises(InvalidParameterError):
        et.set_anomaly_enabled(1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_to_dlpack_gives_a_capsule_torch_reads(dtype, shape):
    values = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    cap = et.to_dlpack(et.tensor(values))
    assert type(cap).__name__ == type(torch.to_dlpack(torch.tensor(values))).__name__
    back = torch.utils.dlpack.from_dlpack(cap)
    assert back.dtype == torch.tensor(values).dtype
    np.testing.assert_array_equal(back.numpy(), values)
    with pytest.raises(KindError):
        et.to_dlpack(values)

"""Tests of ember/devices.py's parsing of device names: an index past int64, negative or not
made of ASCII digits is an InvalidParameterError naming the device on every entry point that
takes one; a well-formed index of a device this machine lacks is a DeviceError."""

import re

import pytest

import ember
import ember.array_api as xp
from ember import DeviceError, InvalidParameterError

BAD_NAMES = ["cuda:99999999999999999999999", "torch:cuda:9223372036854775808", "cuda:-1",
             "cuda:x", "cuda:\N{SUPERSCRIPT ONE}", "cuda:\N{FULLWIDTH DIGIT TWO}", "cuda: 1",
             "cuda:+1", "cuda:1:2"]

ENTRY_POINTS = {
    "zeros": lambda d: ember.zeros(2, device=d),
    "ones": lambda d: ember.ones((2, 3), device=d),
    "full": lambda d: ember.full((2,), 1.5, device=d),
    "arange": lambda d: ember.arange(3, device=d),
    "tensor": lambda d: ember.tensor([1.0, 2.0], device=d),
    "randn": lambda d: ember.randn(2, device=d),
    "zeros_like": lambda d: ember.ones(2).zeros_like(device=d),
    "to_device": lambda d: ember.ones(2).to_device(d),
    "to": lambda d: ember.ones(2).to(d),
    "Module.to": lambda d: ember.nn.Linear(2, 2).to(d),
    "array_api.zeros": lambda d: xp.zeros(2, device=d),
    "array_api.asarray": lambda d: xp.asarray([1.0], device=d),
    "set_default_device": lambda d: ember.set_default_device(d),
}


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_bad_device_name_is_typed(entry, name):
    before = ember.get_default_device()
    with pytest.raises(InvalidParameterError, match=re.escape(f"device: {name!r}")) as info:
        ENTRY_POINTS[entry](name)
    assert info.value.param == "device"
    assert info.value.value == name
    assert ember.get_default_device() is before


@pytest.mark.parametrize("name", BAD_NAMES)
def test_device_constructor_refuses(name):
    with pytest.raises(InvalidParameterError, match="has an invalid index|is not a device name"):
        ember.Device(name)


@pytest.mark.parametrize("index", [2 ** 63, 2 ** 70, -1, True, 1.0])
def test_device_index_argument_refused(index):
    with pytest.raises(InvalidParameterError,
                       match=re.escape(f"device: index {index!r} must be an int from 0 to "
                                       f"{2 ** 63 - 1}")) as info:
        ember.Device("cuda", index)
    assert info.value.param == "index"


def test_largest_index_parses():
    d = ember.Device(f"cuda:{2 ** 63 - 1}")
    assert (d.type, d.index, str(d)) == ("cuda", 2 ** 63 - 1, f"torch:cuda:{2 ** 63 - 1}")
    assert ember.Device("cuda:01") is ember.Device("torch:cuda:1")


@pytest.mark.parametrize("index", [128, 2 ** 63 - 1])
@pytest.mark.parametrize("entry", ["zeros", "to_device", "to", "array_api.zeros"])
def test_missing_device_is_device_error(entry, index):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available() and index < torch.cuda.device_count():
        pytest.skip("this machine has that many CUDA devices")
    # torch keeps indices in 8 bits: cuda:128 must not become cuda:-128
    with pytest.raises(DeviceError, match=rf"device torch:cuda:{index} is not available"):
        ENTRY_POINTS[entry](f"cuda:{index}")

"""ember.torch's device queries answer as PyTorch's on this machine (the oracle: torch 2.13)."""

import pytest
import torch

import ember.torch as et
from ember.errors import DeviceError


def test_cuda_queries_match_pytorch():
    assert et.cuda.is_available() == torch.cuda.is_available()
    assert et.cuda.device_count() == torch.cuda.device_count()
    assert et.cuda.is_bf16_supported() == (torch.cuda.is_available()
                                           and torch.cuda.is_bf16_supported())


@pytest.mark.skipif(torch.cuda.is_available(), reason="the answers without CUDA")
def test_cuda_without_a_device():
    et.cuda.manual_seed(0)  # ignored, as PyTorch's
    et.cuda.manual_seed_all(0)
    et.cuda.empty_cache()
    for call in (et.cuda.synchronize, et.cuda.current_device, et.cuda.get_device_name):
        with pytest.raises(DeviceError, match="no CUDA device"):
            call()


def test_accelerator_matches_pytorch():
    assert et.accelerator.is_available() == torch.accelerator.is_available()
    assert et.accelerator.device_count() == torch.accelerator.device_count()
    ours, theirs = et.accelerator.current_accelerator(), torch.accelerator.current_accelerator()
    assert (ours is None) == (theirs is None)
    if theirs is not None:
        assert ours.type == theirs.type


def test_the_device_idiom_of_pytorch_programs():
    device = et.accelerator.current_accelerator() if et.accelerator.is_available() else "cpu"
    x = et.ones(2, 3, device=device)
    assert x.device.type == (device if isinstance(device, str) else device.type)
    assert et.device("cpu").type == torch.device("cpu").type == "cpu"
    assert et.device("cuda:1").index == torch.device("cuda:1").index == 1
    assert et.device("cuda").type == torch.device("cuda").type


def test_backends_flags():
    assert et.backends.mps.is_available() == torch.backends.mps.is_available()
    assert et.backends.mps.is_built() == torch.backends.mps.is_built()
    assert et.backends.cuda.is_built() == torch.backends.cuda.is_built()
    before = torch.backends.cudnn.benchmark
    try:
        et.backends.cudnn.benchmark = True
        assert et.backends.cudnn.benchmark is True
        assert torch.backends.cudnn.benchmark is True  # passed on to PyTorch
    finally:
        et.backends.cudnn.benchmark = before
    assert et.backends.cudnn.is_available() == (torch.cuda.is_available()
                                                and torch.backends.cudnn.is_available())

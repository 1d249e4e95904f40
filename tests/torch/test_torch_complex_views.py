"""ember/torch/complex_views.py against torch 2.13: view_as_real, view_as_complex (values,
shapes, dtypes, errors) and Tensor.chalf (ember has no complex32)."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import KindError, ShapeMismatchError
from oracle import assert_close


def _complex(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)])
def test_view_as_real(dtype, shape):
    z = _complex(shape, dtype)
    assert_close(et.view_as_real(et.tensor(z)), torch.view_as_real(torch.tensor(z)))
    assert not hasattr(et.Tensor, "view_as_real") and not hasattr(torch.Tensor, "view_as_real")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2,), (0, 2), (3, 2), (2, 4, 2)])
def test_view_as_complex(dtype, shape):
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    # (torch.zeros gives the empty case the unit last stride PyTorch asks for)
    expected = torch.view_as_complex(torch.zeros(shape, dtype=getattr(torch, dtype))
                                     + torch.tensor(x))
    assert_close(et.view_as_complex(et.tensor(x)), expected)
    assert_close(et.view_as_real(et.view_as_complex(et.tensor(x))), torch.tensor(x))


def test_round_trip_keeps_values():
    z = _complex((4,), "complex128", seed=3)
    assert_close(et.view_as_complex(et.view_as_real(et.tensor(z))), torch.tensor(z))


def test_errors_as_torch():
    with pytest.raises(RuntimeError):
        torch.view_as_real(torch.ones(2))
    with pytest.raises(KindError):
        et.view_as_real(et.ones(2))
    with pytest.raises(RuntimeError):
        torch.view_as_complex(torch.ones(2, 3))
    with pytest.raises(ShapeMismatchError):
        et.view_as_complex(et.ones(2, 3))
    with pytest.raises(ShapeMismatchError):
        et.view_as_complex(et.ones(()))
    with pytest.raises(RuntimeError):
        torch.view_as_complex(torch.ones(2, dtype=torch.int64))
    with pytest.raises(KindError):
        et.view_as_complex(et.ones(2, dtype=et.int64))
    with pytest.raises(KindError):
        et.view_as_complex(et.ones(2, dtype=et.float16))  # complex32: not in ember
    with pytest.raises(KindError):
        et.view_as_real([1.0])


def test_chalf_raises_kind_error_without_complex32():
    assert torch.ones(1).chalf().dtype == torch.complex32
    with pytest.raises(KindError, match="complex32"):
        et.ones(1).chalf()

"""ember.onnx's signal converters (ops_signal) against onnx's ReferenceEvaluator and
onnxruntime, and DFT's gradients against torch.fft."""

import numpy as np
import pytest
import torch

from onnx_node import R, check, f32, model_of

import ember  # noqa: E402


def i64(v):
    return np.asarray(v, dtype=np.int64)


@pytest.mark.parametrize("shape,axis", [((2, 8, 1), 1), ((2, 7, 3, 2), 1), ((3, 5, 2), -2)])
@pytest.mark.parametrize("inverse", [0, 1])
def test_dft_opset20(shape, axis, inverse):
    x = f32(*shape).astype(np.float64)
    check("DFT", [("x", x), ("", None), ("a", i64(axis))], {"inverse": inverse},
          consts=("a",), oracle="ref", atol=1e-9)


@pytest.mark.parametrize("length", [6, 12])
def test_dft_length_and_onesided(length):
    x = f32(2, 9, 1).astype(np.float64)
    check("DFT", [("x", x), ("n", i64(length)), ("a", i64(1))], {"onesided": 1},
          consts=("n", "a"), oracle="ref", atol=1e-9)


def test_dft_opset17_axis_attribute_and_float32():
    check("DFT", [("x", f32(2, 3, 6, 2))], {"axis": 2}, opset=17, oracle="ort", atol=1e-5)


def test_dft_inverse_onesided_gives_the_real_signal():
    spec = np.fft.rfft(R.standard_normal((2, 10)), axis=1)
    x = np.stack([spec.real, spec.imag], -1)              # (2, 6, 2)
    check("DFT", [("x", x), ("", None), ("a", i64(1))], {"inverse": 1, "onesided": 1},
          consts=("a",), oracle="ref", atol=1e-9)


@pytest.mark.parametrize("onesided", [0, 1])
def test_stft(onesided):
    sig = f32(2, 40, 1)
    window = np.hanning(8).astype(np.float32)
    check("STFT", [("s", sig), ("st", i64(3)), ("w", window)], {"onesided": onesided},
          consts=("st",), oracle="ort", atol=1e-5)
    check("STFT", [("s", sig), ("st", i64(4)), ("", None), ("n", i64(6))], {"onesided": onesided},
          consts=("st", "n"), oracle="ort", atol=1e-5)


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
def test_windows(op, periodic):
    check(op, [("n", i64(10))], {"periodic": periodic}, consts=("n",), oracle="ort", atol=1e-6)
    check(op, [("n", i64(7))], {"periodic": periodic, "output_datatype": 11}, consts=("n",),
          oracle="ref", atol=1e-12)


def test_mel_weight_matrix():
    ins = [("b", i64(8)), ("d", i64(64)), ("r", i64(16000)), ("lo", np.float32(20.0)),
           ("hi", np.float32(7000.0))]
    check("MelWeightMatrix", ins, consts=("b", "d", "r", "lo", "hi"), oracle="ref")


def test_dft_gradients_match_torch_fft():
    x = f32(3, 8, 2)
    model, _ = model_of("DFT", [("x", x)], {"axis": 1}, opset=17)
    m = ember.onnx.load(model)
    xe = ember.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    w = f32(3, 8, 2)
    (m(xe) * ember.tensor(w)).sum().backward()
    ref = torch.view_as_real(torch.fft.fft(torch.view_as_complex(xt), dim=1))
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)

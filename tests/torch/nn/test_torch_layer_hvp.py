"""Second-order gradients of every ember.torch.nn layer against PyTorch: for each case of
layer_cases.py the PyTorch module's weights are loaded into the ember.torch one (state_dict),
and the gradient and a Hessian-vector product of a scalar function of the outputs, with
respect to the float inputs and every parameter, are compared in float64 (1e-6).

PyTorch runs with its math attention kernel: its default CPU flash-attention kernel has no
double backward. Layers whose PyTorch double backward does not exist are listed in
NO_DOUBLE_BACKWARD with the reason; for them a test checks that PyTorch indeed refuses, and
ember's Hessian-vector product is checked against second differences of PyTorch's forward
instead. Cases that have no forward (containers, base classes) are listed in NO_FORWARD.
"""

import numpy as np
import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import ember.torch as et

from layer_cases import CASES
from layer_runner import build_pair, flat, lib_tensor, make_inputs

NO_DOUBLE_BACKWARD = {
    "Hardsigmoid": "aten::hardsigmoid_backward has no derivative (piecewise linear: 0)",
    "EmbeddingBag": "_embedding_bag_backward has no derivative",
    "EmbeddingBag-sum-offsets": "_embedding_bag_backward has no derivative",
    "CrossMapLRN2d": "a legacy autograd.Function whose backward is not differentiable (nor "
                     "the derivative of its forward: see test_torch_cross_map_lrn.py)",
    "MultiLabelMarginLoss": "multilabel_margin_loss_backward has no derivative",
    "MultiMarginLoss": "multi_margin_loss_backward has no derivative",
    "CTCLoss": "_ctc_loss_backward has no derivative",
}
NO_FORWARD = {c.id: "a container or base class without a forward" for c in CASES if not c.call}
SWEPT = [c for c in CASES if c.call and c.id not in NO_DOUBLE_BACKWARD]
UNSUPPORTED = [c for c in CASES if c.id in NO_DOUBLE_BACKWARD]
TOL = 1e-6


def _grad(lib):
    return torch.autograd.grad if lib is torch else et.autograd.grad


def _leaves(lib, module, case):
    args, inputs = make_inputs(lib, case.inputs(np.random.default_rng(1)), True)
    return args, inputs + [p for _, p in sorted(module.named_parameters())]


def _objective(lib, out):
    """sum(r * out) + sum(s * out**2) / 2 over the float outputs (fixed random r, s)."""
    rng = np.random.default_rng(2)
    total = 0
    for o in (o for o in flat(out) if o.is_floating_point()):
        r = lib_tensor(lib, rng.standard_normal(tuple(o.shape)))
        s = lib_tensor(lib, rng.standard_normal(tuple(o.shape)))
        total = total + (o * r).sum() + 0.5 * (o * o * s).sum()
    return total


def _directions(leaves):
    rng = np.random.default_rng(3)
    return [rng.standard_normal(tuple(t.shape)) for t in leaves]


def _zeros_for_none(grads, leaves):
    return [np.zeros(tuple(t.shape)) if g is None else g.detach().numpy()
            for g, t in zip(grads, leaves)]


def _prepared(case, args):
    """The module's arguments from the leaves: CTC's log-probabilities are the log_softmax of
    the leaf (its gradient is PyTorch's, a formula valid for normalized log-probabilities
    only, so its derivative is checked along them)."""
    if case.id == "CTCLoss":
        return (args[0].log_softmax(2),) + tuple(args[1:])
    return args


def gradient_and_hvp(lib, module, case):
    """(gradient, Hessian-vector product) of the objective w.r.t. the leaves, as arrays."""
    grad = _grad(lib)
    args, leaves = _leaves(lib, module, case)
    with sdpa_kernel(SDPBackend.MATH):
        f = _objective(lib, module(*_prepared(case, args)))
        gs = grad(f, leaves, create_graph=True, allow_unused=True)
        inner = 0
        for g, v in zip(gs, _directions(leaves)):
            if g is not None:
                inner = inner + (g * lib_tensor(lib, v)).sum()
        hv = grad(inner, leaves, allow_unused=True) if getattr(inner, "requires_grad", False) \
            else [None] * len(leaves)
    return _zeros_for_none(gs, leaves), _zeros_for_none(hv, leaves)


def _compare(got, want, what):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, (what, i)
        np.testing.assert_allclose(g, w, rtol=TOL, atol=TOL, err_msg=f"{what} of leaf {i}")


@pytest.mark.parametrize("case", SWEPT, ids=str)
def test_gradient_and_hvp_match_torch(case):
    tm, em = build_pair(case)
    tg, th = gradient_and_hvp(torch, tm, case)
    eg, eh = gradient_and_hvp(et, em, case)
    _compare(eg, tg, "gradient")
    _compare(eh, th, "Hessian-vector product")
    assert any(np.abs(h).max() > 0 for h in th if h.size) or case.id in PIECEWISE_LINEAR


# layers whose outputs are piecewise linear in every leaf: their Hessian is 0 almost everywhere
PIECEWISE_LINEAR = {
    "ReLU", "ReLU6", "LeakyReLU", "Hardtanh", "Hardshrink", "Softshrink", "Threshold", "RReLU",
    "Identity", "Flatten", "Unflatten", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle",
    "Upsample", "Upsample-bicubic", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Fold", "Unfold", "L1Loss",
    "HingeEmbeddingLoss", "MarginRankingLoss", "Embedding",
    "Embedding-padding_idx", "NLLLoss", "NLLLoss2d",
} | {f"{k}Pad{d}d" for k in ("Zero", "Constant", "Reflection", "Replication", "Circular")
     for d in (1, 2, 3)} | {"ZeroPad2d-uneven"}


@pytest.mark.parametrize("case", UNSUPPORTED, ids=str)
def test_torch_has_no_double_backward_for_the_listed_layers(case):
    tm, _ = build_pair(case)
    with pytest.raises((RuntimeError, NotImplementedError)):
        gradient_and_hvp(torch, tm, case)


def _torch_value_at(module, case, state, deltas):
    """PyTorch's objective with every leaf moved by its ``delta`` (no autograd involved)."""
    module.load_state_dict(state)
    args, leaves = _leaves(torch, module, case)
    with torch.no_grad():
        for t, d in zip(leaves, deltas):
            t.add_(torch.from_numpy(d))
        return float(_objective(torch, module(*_prepared(case, args))))


@pytest.mark.parametrize("case", UNSUPPORTED, ids=str)
def test_hvp_of_the_listed_layers_matches_second_differences_of_torchs_forward(case):
    # (H v)_k = d2 f / (dv de_k), from four values of PyTorch's forward each
    tm, em = build_pair(case)
    state = {k: v.clone() for k, v in tm.state_dict().items()}
    _, leaves = _leaves(torch, tm, case)
    directions = _directions(leaves)
    h = 1e-4
    numeric = []
    for i, leaf in enumerate(leaves):
        out = np.zeros(tuple(leaf.shape))
        for k in np.ndindex(out.shape):
            values = {}
            for a in (1, -1):
                for b in (1, -1):
                    deltas = [a * h * v for v in directions]
                    deltas[i] = deltas[i].copy()
                    deltas[i][k] += b * h
                    values[a, b] = _torch_value_at(tm, case, state, deltas)
            out[k] = (values[1, 1] - values[1, -1] - values[-1, 1] + values[-1, -1]) / (4 * h * h)
        numeric.append(out)
    _, eh = gradient_and_hvp(et, em, case)
    _compare(eh, numeric, "Hessian-vector product")


def test_every_case_is_swept_or_listed_with_a_reason():
    ids = {c.id for c in CASES}
    assert set(NO_DOUBLE_BACKWARD) <= ids and set(PIECEWISE_LINEAR) <= ids
    for c in CASES:
        assert (c in SWEPT) + (c.id in NO_DOUBLE_BACKWARD) + (c.id in NO_FORWARD) == 1, c.id
    names = {n for n in et.nn.__all__ if isinstance(getattr(et.nn, n), type)
             and issubclass(getattr(et.nn, n), et.nn.Module)}
    assert names == {c.cls for c in CASES}

"""ember.torch.nn's MultiheadAttention and transformer layers against PyTorch 2.13, written as a
PyTorch program uses them: the same module built in both (weights through the state dict, keys
equal), compared in eval mode for outputs, attention weights and the gradients with respect to
the inputs and every parameter; a Hessian-vector product; typed errors; subclassing."""

import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import EmberError, InvalidParameterError, KindError, ShapeMismatchError
from ember.torch import nn as enn

tnn = torch.nn

# PyTorch's notice about its inference fast path (nested tensors), which ember does not take
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")

DTYPES = {"float64": (torch.float64, et.float64, 1e-6), "float32": (torch.float32, et.float32,
                                                                    1e-5)}


def to_e(t, requires_grad=False):
    out = et.tensor(t.detach().numpy())
    return out.requires_grad_() if requires_grad else out


def close(e, t, tol):
    assert isinstance(e, et.Tensor), type(e)
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert e.dtype.name == str(t.dtype).replace("torch.", "")
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def pair(kind, *args, dtype="float64", **kw):
    """The torch module and the ember.torch module with its weights, both in eval mode."""
    tdt, edt, _ = DTYPES[dtype]
    torch.manual_seed(0)
    tm = getattr(tnn, kind)(*args, dtype=tdt, **kw)
    em = getattr(enn, kind)(*args, dtype=edt, **kw)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    result = em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert repr(em) == repr(tm)
    return em.eval(), tm.eval()


def run_both(em, tm, inputs, masks=None, dtype="float64", call=None, seed=1):
    """Call both modules on the float arrays ``inputs`` (which require grad) and the ``masks``
    (name -> array, no grad) and compare outputs, input gradients and parameter gradients."""
    tdt, _, tol = DTYPES[dtype]
    masks = masks or {}
    xt = [torch.tensor(x, dtype=tdt, requires_grad=True) for x in inputs]
    xe = [to_e(x, True) for x in xt]
    mt = {k: (v if not isinstance(v, np.ndarray) else
              torch.tensor(v, dtype=tdt if v.dtype.kind == "f" else None))
          for k, v in masks.items()}
    me = {k: (to_e(v) if isinstance(v, torch.Tensor) else v) for k, v in mt.items()}
    call = call or (lambda m, xs, kw: m(*xs, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ot, oe = call(tm, xt, mt), call(em, xe, me)
    ot = ot if isinstance(ot, tuple) else (ot,)
    oe = oe if isinstance(oe, tuple) else (oe,)
    assert len(ot) == len(oe)
    rng = np.random.default_rng(seed)
    loss_t, loss_e = 0, 0
    for a, b in zip(oe, ot):
        if b is None:
            assert a is None
            continue
        close(a, b, tol)
        w = rng.standard_normal(tuple(b.shape))
        loss_t = loss_t + (b * torch.tensor(w, dtype=tdt)).sum()
        loss_e = loss_e + (a * et.tensor(w, dtype=b.dtype.__str__()[6:])).sum()
    loss_t.backward()
    loss_e.backward()
    for a, b in zip(xe, xt):
        close(a.grad, b.grad, tol * 10)
    for (n, p), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert n == tn
        if tp.grad is None:
            assert p.grad is None or not p.grad.detach().numpy().any(), n
        else:
            close(p.grad, tp.grad, tol * 10)
    return oe, ot


def seq(rng, *shape):
    return rng.standard_normal(shape)


def bool_mask(rng, *shape):
    """A random bool mask (True: do not attend) whose first key is never masked."""
    m = rng.random(shape) < 0.4
    m[..., 0] = False
    return m


def float_mask(rng, *shape):
    return np.where(bool_mask(rng, *shape), -np.inf, rng.standard_normal(shape))


# -- MultiheadAttention -------------------------------------------------------------------------

def test_classes_are_torch_modules_over_ember_layers():
    for kind in ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
                 "TransformerEncoder", "TransformerDecoder", "Transformer"):
        cls = getattr(enn, kind)
        assert issubclass(cls, enn.Module) and issubclass(cls, getattr(ember.nn, kind))
        assert kind in ember.nn.__all__ and kind in enn.__all__
    m = enn.MultiheadAttention(8, 2)
    assert all(type(p).__name__ == "Parameter" for p in m.parameters())
    assert m.head_dim == 4 and m._qkv_same_embed_dim and m.q_proj_weight is None
    m2 = enn.MultiheadAttention(8, 2, kdim=3, vdim=5)
    assert m2.in_proj_weight is None and tuple(m2.k_proj_weight.shape) == (8, 3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_self_and_cross_attention(rng, dtype, batch_first):
    em, tm = pair("MultiheadAttention", 8, 2, batch_first=batch_first, dtype=dtype)
    L, S, N = 3, 5, 2
    shape = (lambda s: (N, s, 8)) if batch_first else (lambda s: (s, N, 8))
    run_both(em, tm, [seq(rng, *shape(L)), seq(rng, *shape(S)), seq(rng, *shape(S))],
             dtype=dtype)
    x = seq(rng, *shape(L))
    run_both(em, tm, [x], dtype=dtype, call=lambda m, xs, kw: m(xs[0], xs[0], xs[0]))


@pytest.mark.parametrize("kw", [dict(kdim=3, vdim=5), dict(add_bias_kv=True),
                                dict(add_zero_attn=True), dict(bias=False),
                                dict(add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=6)])
def test_mha_options(rng, kw):
    em, tm = pair("MultiheadAttention", 8, 4, **kw)
    L, S, N = 4, 3, 2
    k = seq(rng, S, N, kw.get("kdim", 8))
    v = seq(rng, S, N, kw.get("vdim", 8))
    run_both(em, tm, [seq(rng, L, N, 8), k, v])
    masks = {"key_padding_mask": bool_mask(rng, N, S), "attn_mask": float_mask(rng, L, S)}
    run_both(em, tm, [seq(rng, L, N, 8), k, v], masks)
    run_both(em, tm, [seq(rng, L, N, 8), k, v], dict(masks, need_weights=False))


@pytest.mark.parametrize("mask", ["bool2", "float2", "bool3", "float3", "kpm_bool", "kpm_float",
                                  "both_bool", "both_float"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_masks(rng, mask, need_weights, average):
    em, tm = pair("MultiheadAttention", 6, 3)
    L, S, N, H = 4, 5, 2, 3
    make = bool_mask if "bool" in mask else float_mask
    masks = {}
    if mask[-1] == "2" or mask.startswith("both"):
        masks["attn_mask"] = make(rng, L, S)
    if mask[-1] == "3":
        masks["attn_mask"] = make(rng, N * H, L, S)
    if "kpm" in mask or mask.startswith("both"):
        masks["key_padding_mask"] = make(rng, N, S)
    masks.update(need_weights=need_weights, average_attn_weights=average)
    oe, ot = run_both(em, tm, [seq(rng, L, N, 6), seq(rng, S, N, 6), seq(rng, S, N, 6)], masks)
    assert (oe[1] is None) == (not need_weights)
    if need_weights:
        assert tuple(oe[1].shape) == ((N, L, S) if average else (N, H, L, S))


def test_mha_causal_hint_and_mixed_mask_kinds(rng):
    em, tm = pair("MultiheadAttention", 4, 2, batch_first=True)
    causal = tnn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64).numpy()
    x = seq(rng, 2, 5, 4)
    for need in (True, False):
        run_both(em, tm, [x], {"attn_mask": causal, "is_causal": True, "need_weights": need},
                 call=lambda m, xs, kw: m(xs[0], xs[0], xs[0], **kw))
    run_both(em, tm, [x, x, x], {"attn_mask": bool_mask(rng, 5, 5),
                                 "key_padding_mask": float_mask(rng, 2, 5)})


@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_unbatched(rng, batch_first):
    em, tm = pair("MultiheadAttention", 6, 2, batch_first=batch_first, kdim=4, vdim=6)
    L, S = 3, 4
    masks = {"key_padding_mask": bool_mask(rng, S), "attn_mask": float_mask(rng, 2, L, S)}
    for avg in (True, False):
        oe, _ = run_both(em, tm, [seq(rng, L, 6), seq(rng, S, 4), seq(rng, S, 6)],
                         dict(masks, average_attn_weights=avg))
        assert tuple(oe[0].shape) == (L, 6)
    run_both(em, tm, [seq(rng, L, 6), seq(rng, S, 4), seq(rng, S, 6)],
             {"attn_mask": bool_mask(rng, L, S), "need_weights": False})


def test_mha_functional_form(rng):
    """F.multi_head_attention_forward with separate weights, static keys and values."""
    E, H, L, S, N = 6, 2, 3, 4, 2
    arrays = [seq(rng, L, N, E), seq(rng, S, N, E), seq(rng, S, N, E), seq(rng, 3 * E, E),
              seq(rng, 3 * E), seq(rng, E, E), seq(rng, E), seq(rng, N * H, S, E // H),
              seq(rng, N * H, S, E // H)]
    masks = {"kpm": bool_mask(rng, N, S)}

    def call(F):
        def f(m, xs, kw):
            q, k, v, w, b, wo, bo, sk, sv = xs
            return F.multi_head_attention_forward(
                q, k, v, E, H, None, b, None, None, False, 0.0, wo, bo, training=False,
                key_padding_mask=kw["kpm"], use_separate_proj_weight=True, q_proj_weight=w[:E],
                k_proj_weight=w[E:2 * E], v_proj_weight=w[2 * E:], static_k=sk, static_v=sv,
                average_attn_weights=False)
        return f

    tdt = torch.float64
    xt = [torch.tensor(x, dtype=tdt, requires_grad=True) for x in arrays]
    xe = [to_e(x, True) for x in xt]
    ot = call(tnn.functional)(None, xt, {"kpm": torch.tensor(masks["kpm"])})
    oe = call(enn.functional)(None, xe, {"kpm": et.tensor(masks["kpm"])})
    for a, b in zip(oe, ot):
        close(a, b, 1e-6)
    (ot[0].square().sum() + ot[1].sum() * 3).backward()
    (oe[0].square().sum() + oe[1].sum() * 3).backward()
    for a, b in zip(xe, xt):
        if b.grad is None or not b.grad.any():  # key and value: replaced by static_k/_v
            assert a.grad is None or not a.grad.detach().numpy().any()
        else:
            close(a.grad, b.grad, 1e-6)
    assert "multi_head_attention_forward" in enn.functional.__all__


def test_mha_hessian_vector_product(rng):
    """The second derivative through attention (double backward) against PyTorch's."""
    em, tm = pair("MultiheadAttention", 4, 2, add_bias_kv=True)
    x = seq(rng, 3, 2, 4)
    kpm = bool_mask(rng, 2, 3)
    results = []
    for m, lib, to in ((tm, torch, torch.tensor), (em, et, lambda a, **k: to_e(torch.tensor(a)))):
        xs = to(x, dtype=torch.float64) if lib is torch else to(x)
        xs.requires_grad_()
        mask = torch.tensor(kpm) if lib is torch else et.tensor(kpm)
        params = [p for _, p in m.named_parameters()]
        out, w = m(xs, xs, xs, key_padding_mask=mask, average_attn_weights=False)
        loss = out.tanh().sum() + (w * w).sum()
        grads = lib.autograd.grad(loss, [xs] + params, create_graph=True)
        vrng = np.random.default_rng(7)
        dot = 0
        for g in grads:
            vec = vrng.standard_normal(tuple(g.shape))
            dot = dot + (g * (torch.tensor(vec) if lib is torch else et.tensor(vec))).sum()
        results.append(lib.autograd.grad(dot, [xs] + params))
    for a, b in zip(results[1], results[0]):
        close(a, b, 1e-6)


def test_mha_dropout_in_training_only(rng):
    m = enn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True)
    x = et.tensor(seq(rng, 2, 6, 4).astype("float32"))
    a = m(x, x, x)[1]
    b = m(x, x, x)[1]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    # as PyTorch's, the weights returned are the ones after dropout: rows no longer sum to 1
    assert not np.allclose(a.detach().numpy().sum(-1), 1.0)
    out = m(x, x, x, need_weights=False)[0]
    assert not np.allclose(out.detach().numpy(), m(x, x, x, need_weights=False)[0].detach().numpy())
    m.eval()
    c, d = m(x, x, x)[1], m(x, x, x)[1]
    np.testing.assert_array_equal(c.detach().numpy(), d.detach().numpy())
    np.testing.assert_allclose(c.detach().numpy().sum(-1), np.ones((2, 6)), atol=1e-6)


def test_mha_initialization_statistics():
    """PyTorch's init: Xavier-uniform in_proj (bound sqrt(6 / (E + 3E))), zero biases."""
    E = 64
    m = enn.MultiheadAttention(E, 4, add_bias_kv=True)
    w = m.in_proj_weight.detach().numpy()
    bound = math.sqrt(6 / (E + 3 * E))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not m.in_proj_bias.detach().numpy().any()
    assert not m.out_proj.bias.detach().numpy().any()
    bk = m.bias_k.detach().numpy()
    assert bk.shape == (1, 1, E) and 0.05 < bk.std() < 0.35  # xavier_normal: std sqrt(2/128)
    m2 = enn.MultiheadAttention(E, 4, kdim=32, vdim=16)
    assert np.abs(m2.v_proj_weight.detach().numpy()).max() <= math.sqrt(6 / (E + 16))


# -- encoder and decoder layers -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("batch_first,norm_first", [(False, False), (True, False), (False, True),
                                                    (True, True)])
def test_encoder_layer(rng, dtype, batch_first, norm_first):
    em, tm = pair("TransformerEncoderLayer", 8, 2, dim_feedforward=16, batch_first=batch_first,
                  norm_first=norm_first, dtype=dtype)
    S, N = 5, 3
    x = seq(rng, N, S, 8) if batch_first else seq(rng, S, N, 8)
    run_both(em, tm, [x], dtype=dtype)
    masks = {"src_mask": float_mask(rng, S, S), "src_key_padding_mask": bool_mask(rng, N, S)}
    run_both(em, tm, [x], masks, dtype=dtype)


@pytest.mark.parametrize("activation", ["relu", "gelu", "module", "function"])
def test_encoder_layer_activations_and_unbatched(rng, activation):
    act = {"module": lambda nn: nn.GELU(approximate="tanh"),
           "function": lambda nn: nn.functional.silu}.get(activation, lambda nn: activation)
    torch.manual_seed(0)
    kw = dict(dim_feedforward=12, dtype=torch.float64, bias=activation != "gelu")
    tm = tnn.TransformerEncoderLayer(6, 3, activation=act(tnn), **kw).eval()
    em = enn.TransformerEncoderLayer(6, 3, activation=act(enn),
                                     **dict(kw, dtype=et.float64)).eval()
    assert list(em.state_dict()) == list(tm.state_dict()) and repr(em) == repr(tm)
    em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    run_both(em, tm, [seq(rng, 4, 2, 6)], {"is_causal": True, "src_mask":
             tnn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64).numpy()})
    run_both(em, tm, [seq(rng, 4, 6)], {"src_key_padding_mask": bool_mask(rng, 4)})


@pytest.mark.parametrize("batch_first,norm_first", [(False, False), (True, True)])
def test_decoder_layer(rng, batch_first, norm_first):
    em, tm = pair("TransformerDecoderLayer", 8, 4, dim_feedforward=10, batch_first=batch_first,
                  norm_first=norm_first, activation="gelu")
    T, S, N = 4, 5, 2
    shape = (lambda s: (N, s, 8)) if batch_first else (lambda s: (s, N, 8))
    run_both(em, tm, [seq(rng, *shape(T)), seq(rng, *shape(S))])
    masks = {"tgt_mask": float_mask(rng, T, T), "memory_mask": bool_mask(rng, T, S),
             "tgt_key_padding_mask": bool_mask(rng, N, T),
             "memory_key_padding_mask": bool_mask(rng, N, S)}
    run_both(em, tm, [seq(rng, *shape(T)), seq(rng, *shape(S))], masks)
    run_both(em, tm, [seq(rng, T, 8), seq(rng, S, 8)],
             {"tgt_key_padding_mask": bool_mask(rng, T)})


# -- stacks and the whole transformer -----------------------------------------------------------

def stack_pair(kind, layer_kind, n, norm, **kw):
    torch.manual_seed(0)
    tm = getattr(tnn, kind)(getattr(tnn, layer_kind)(6, 2, 12, dtype=torch.float64, **kw), n,
                            tnn.LayerNorm(6, dtype=torch.float64) if norm else None)
    em = getattr(enn, kind)(getattr(enn, layer_kind)(6, 2, 12, dtype=et.float64, **kw), n,
                            enn.LayerNorm(6, dtype=et.float64) if norm else None)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert repr(em) == repr(tm)
    em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    return em.eval(), tm.eval()


def test_encoder_stack(rng):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em, tm = stack_pair("TransformerEncoder", "TransformerEncoderLayer", 2, True)
    assert list(em.state_dict())[0] == "layers.0.self_attn.in_proj_weight"
    a, b = em.layers[0], em.layers[1]
    assert a is not b and a.linear1.weight is not b.linear1.weight
    mask = tnn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64).numpy()
    run_both(em, tm, [seq(rng, 5, 2, 6)], {"mask": mask, "src_key_padding_mask":
                                           bool_mask(rng, 2, 5)})
    run_both(em, tm, [seq(rng, 5, 2, 6)], {"mask": mask, "is_causal": True})


def test_decoder_stack(rng):
    em, tm = stack_pair("TransformerDecoder", "TransformerDecoderLayer", 2, False,
                        batch_first=True)
    mask = tnn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64).numpy()
    run_both(em, tm, [seq(rng, 2, 3, 6), seq(rng, 2, 4, 6)],
             {"tgt_mask": mask, "tgt_is_causal": True,
              "memory_key_padding_mask": bool_mask(rng, 2, 4)})


@pytest.mark.parametrize("batch_first,norm_first", [(False, False), (True, True)])
def test_transformer(rng, batch_first, norm_first):
    em, tm = pair("Transformer", d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                  dim_feedforward=16, batch_first=batch_first, norm_first=norm_first)
    S, T, N = 5, 4, 2
    shape = (lambda s: (N, s, 8)) if batch_first else (lambda s: (s, N, 8))
    tgt_mask = tnn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64).numpy()
    masks = {"src_mask": bool_mask(rng, S, S), "tgt_mask": tgt_mask,
             "memory_mask": float_mask(rng, T, S), "src_key_padding_mask": bool_mask(rng, N, S),
             "tgt_key_padding_mask": bool_mask(rng, N, T),
             "memory_key_padding_mask": bool_mask(rng, N, S), "tgt_is_causal": True}
    run_both(em, tm, [seq(rng, *shape(S)), seq(rng, *shape(T))], masks)
    run_both(em, tm, [seq(rng, S, 8), seq(rng, T, 8)], {"tgt_mask": tgt_mask})


def test_generate_square_subsequent_mask():
    for n in (0, 1, 4):
        e = enn.Transformer.generate_square_subsequent_mask(n)
        t = tnn.Transformer.generate_square_subsequent_mask(n)
        assert type(e) is et.Tensor
        close(e, t, 0)
    e = enn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(3, dtype=et.float64)
    close(e, tnn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64), 0)
    plain = ember.nn.Transformer.generate_square_subsequent_mask(2)
    assert type(plain) is ember.Tensor and plain.tolist() == [[0.0, -math.inf], [0.0, 0.0]]


def test_transformer_initialization_is_xavier():
    m = enn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                        dim_feedforward=32)
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    bound = math.sqrt(6 / (16 + 32))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert len(list(m.parameters())) == len(list(tnn.Transformer(
        16, 2, 1, 1, 32).parameters()))


# -- errors -------------------------------------------------------------------------------------

def test_bad_arguments_raise_typed_errors():
    with pytest.raises(InvalidParameterError, match="divisible"):
        enn.MultiheadAttention(8, 3)
    with pytest.raises(InvalidParameterError, match="num_heads"):
        enn.MultiheadAttention(8, 0)
    with pytest.raises(InvalidParameterError, match="dropout"):
        enn.MultiheadAttention(8, 2, dropout=1.5)
    with pytest.raises(InvalidParameterError, match="relu/gelu"):
        enn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(KindError, match="callable"):
        enn.TransformerEncoderLayer(8, 2, activation=3)
    with pytest.raises(KindError, match="encoder_layer"):
        enn.TransformerEncoder(enn.Linear(2, 2), 2)
    with pytest.raises(InvalidParameterError, match="num_layers"):
        enn.TransformerEncoder(enn.TransformerEncoderLayer(8, 2, 16), -1)


@pytest.mark.parametrize("kw,err,match", [
    (dict(attn_mask=np.zeros((3, 4), bool)), ShapeMismatchError, "attn_mask"),
    (dict(attn_mask=np.zeros((5, 3, 3), bool)), ShapeMismatchError, "attn_mask"),
    (dict(attn_mask=np.zeros((1, 1, 3, 3), bool)), ShapeMismatchError, "attn_mask"),
    (dict(attn_mask=np.zeros((3, 3), np.int64)), KindError, "attn_mask"),
    (dict(key_padding_mask=np.zeros((2, 4), bool)), ShapeMismatchError, "key_padding_mask"),
    (dict(is_causal=True), InvalidParameterError, "is_causal"),
])
def test_bad_masks_raise_typed_errors(rng, kw, err, match):
    m = enn.MultiheadAttention(8, 2)
    x = et.tensor(seq(rng, 3, 2, 8).astype("float32"))
    kw = {k: (et.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    with pytest.raises(err, match=match):
        m(x, x, x, **kw)


def test_bad_inputs_raise_typed_errors(rng):
    m = enn.MultiheadAttention(8, 2)
    x = et.tensor(seq(rng, 3, 2, 8).astype("float32"))
    with pytest.raises(ShapeMismatchError, match="embed_dim"):
        m(x[..., :4], x, x)
    with pytest.raises(ShapeMismatchError):
        m(x, x[:, :1], x[:, :1])
    with pytest.raises(ShapeMismatchError):
        m(x, x[0], x[0])
    with pytest.raises(KindError):
        m(x, x.double(), x)
    with pytest.raises(EmberError):
        m(x, [1.0], x)
    model = enn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(ShapeMismatchError, match="batch number"):
        model(x, x[:, :1])
    with pytest.raises(ShapeMismatchError, match="d_model"):
        model(x[..., :4], x[..., :4])
    with pytest.raises(ShapeMismatchError, match="src"):
        enn.TransformerEncoderLayer(8, 2, 16)(x[..., :6])


# -- a PyTorch program -------------------------------------------------------------------------

def build_language_model(torch_module, ntoken=11, ninp=8, nhead=2, nhid=16, nlayers=2):
    """A word language model as PyTorch's example writes one: a subclass of nn.Transformer
    whose constructor calls ``super().__init__`` and then replaces ``self.decoder``."""
    nn = torch_module.nn
    F = nn.functional

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, dropout=0.1, max_len=50):
            super().__init__()
            self.dropout = nn.Dropout(p=dropout)
            pos = torch_module.arange(0, max_len, dtype=torch_module.float).unsqueeze(1)
            freq = torch_module.exp(torch_module.arange(0, d_model, 2).float()
                                    * (-math.log(10000.0) / d_model))
            pe = torch_module.zeros(max_len, d_model)
            pe[:, 0::2] = torch_module.sin(pos * freq)
            pe[:, 1::2] = torch_module.cos(pos * freq)
            self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

        def forward(self, x):
            return self.dropout(x + self.pe[:x.size(0), :])

    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
            super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                             num_encoder_layers=nlayers)
            self.model_type = "Transformer"
            self.src_mask = None
            self.pos_encoder = PositionalEncoding(ninp, dropout)
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)
            initrange = 0.1
            nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            nn.init.uniform_(self.decoder.weight, -initrange, initrange)

        def forward(self, src, has_mask=True):
            if has_mask:
                if self.src_mask is None or self.src_mask.size(0) != len(src):
                    self.src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
            else:
                self.src_mask = None
            src = self.input_emb(src) * math.sqrt(self.ninp)
            src = self.pos_encoder(src)
            output = self.encoder(src, mask=self.src_mask)
            output = self.decoder(output)
            return F.log_softmax(output, dim=-1)

    return TransformerModel(ntoken, ninp, nhead, nhid, nlayers)


def test_word_language_model_subclassing_transformer(rng):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = build_language_model(torch)
    em = build_language_model(et)
    assert isinstance(em, enn.Transformer) and isinstance(em.decoder, enn.Linear)
    assert list(em.state_dict()) == list(tm.state_dict())
    em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    tokens = rng.integers(0, 11, (7, 3))
    targets = rng.integers(0, 11, (7 * 3,))
    losses = []
    for m, lib in ((tm, torch), (em, et)):
        m.eval()
        out = m(lib.tensor(tokens))
        loss = lib.nn.functional.nll_loss(out.view(-1, 11), lib.tensor(targets))
        loss.backward()
        losses.append((out, loss))
    close(losses[1][0], losses[0][0], 1e-5)
    close(losses[1][1], losses[0][1], 1e-5)
    for (n, p), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert n == tn
        if tp.grad is None:
            assert p.grad is None, n
        else:
            close(p.grad, tp.grad, 1e-4)
    em.train()
    a, b = em(et.tensor(tokens)), em(et.tensor(tokens))
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # dropout in training


# -- awkward inputs -----------------------------------------------------------------------------

@pytest.mark.parametrize("L,S,N", [(3, 2, 0), (0, 3, 2), (3, 0, 2)])
@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_size_zero(rng, L, S, N, need_weights):
    em, tm = pair("MultiheadAttention", 4, 2)
    with torch.no_grad():  # nonzero biases, so that they reach the output
        tm.in_proj_bias.add_(0.5)
        tm.out_proj.bias.add_(0.5)
    em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    run_both(em, tm, [seq(rng, L, N, 4), seq(rng, S, N, 4), seq(rng, S, N, 4)],
             {"need_weights": need_weights})


def test_mha_non_contiguous_inputs(rng):
    em, tm = pair("MultiheadAttention", 6, 3, batch_first=True)

    def call(m, xs, kw):  # (L, N, E) views transposed to batch first, a strided key
        q = xs[0].transpose(0, 1)
        k = xs[1][:, ::2].transpose(0, 1)
        return m(q, k, k, **kw)
    run_both(em, tm, [seq(rng, 4, 2, 6), seq(rng, 5, 4, 6)],
             {"key_padding_mask": bool_mask(rng, 2, 5)}, call=call)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_float_mask_gradients(rng, need_weights):
    """A float attn_mask and key_padding_mask that require grad get PyTorch's gradients."""
    em, tm = pair("MultiheadAttention", 4, 2)
    L, S, N = 3, 4, 2
    arrays = [seq(rng, L, N, 4), seq(rng, S, N, 4), seq(rng, 2 * N, L, S), seq(rng, N, S)]

    def call(m, xs, kw):
        return m(xs[0], xs[1], xs[1], attn_mask=xs[2], key_padding_mask=xs[3],
                 need_weights=need_weights)
    run_both(em, tm, arrays, call=call)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_fully_masked_query(rng, need_weights):
    """A sequence whose every key is padding: NaN with the weights (softmax of nothing), zeros
    through scaled_dot_product_attention without them, as PyTorch's."""
    em, tm = pair("MultiheadAttention", 4, 2)
    x = seq(rng, 3, 2, 4)
    kpm = np.array([[True] * 3, [False, True, False]])
    ot = tm(*(torch.tensor(x),) * 3, key_padding_mask=torch.tensor(kpm),
            need_weights=need_weights)[0]
    oe = em(*(et.tensor(x),) * 3, key_padding_mask=et.tensor(kpm), need_weights=need_weights)[0]
    np.testing.assert_allclose(oe.detach().numpy(), ot.detach().numpy(), rtol=1e-6, atol=1e-6)
    assert np.isnan(ot.detach().numpy()[:, 0]).all() == need_weights

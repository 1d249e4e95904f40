"""Attention and transformer layers, PyTorch's ``nn.MultiheadAttention``,
``nn.TransformerEncoderLayer``, ``nn.TransformerDecoderLayer``, ``nn.TransformerEncoder``,
``nn.TransformerDecoder`` and ``nn.Transformer``.

Parameters have PyTorch's names, shapes, order and ``state_dict`` keys (``in_proj_weight`` or
``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when the key or value size differs,
``in_proj_bias``, ``bias_k``, ``bias_v``, ``out_proj.weight``; ``layers.0.self_attn...``) and
PyTorch's initialization (Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/
``bias_v``; ``Transformer`` draws every matrix Xavier-uniform again). Everything is composed of
ember ops (ember/ops/multihead_attention.py), so gradients of any order come from theirs.
Dropout acts in training mode only (``eval()`` turns it off).

>>> import ember
>>> from ember import nn
>>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
>>> encoder = nn.TransformerEncoder(layer, num_layers=2).eval()
>>> encoder(ember.randn(3, 5, 8)).shape
(3, 5, 8)
>>> list(encoder.state_dict())[:2]
['layers.0.self_attn.in_proj_weight', 'layers.0.self_attn.in_proj_bias']
"""

import copy
import functools
import math
import sys

from ..devices import as_device
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import check_tensor
from ..ops.activation import gelu, relu
from ..ops.creation import ones, zeros
from ..ops.multihead_attention import multi_head_attention_forward
from ..ops.nn_args import _int, _shape_str
from . import init
from .containers import ModuleList
from .layers import Dropout, LayerNorm, Linear, _bool, _float_dtype, _positive_real, _prob
from .module import Module

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's output projection: a Linear under PyTorch's name (same keys)."""


def _activation(activation, layer):
    """The feed-forward activation: "relu", "gelu" or a callable (a Module included)."""
    if isinstance(activation, str):
        if activation == "relu":
            return relu
        if activation == "gelu":
            return gelu
        raise InvalidParameterError(f"{layer}: activation should be relu/gelu, not "
                                    f"{activation!r}", "activation", activation)
    if not callable(activation):
        raise KindError(f"{layer}: activation must be \"relu\", \"gelu\" or a callable, got "
                        f"{type(activation).__name__}")
    return activation


def _ints(layer, **values):
    return [_int(v, layer, name, 1) for name, v in values.items()]


class MultiheadAttention(Module):
    """Multi-head attention, PyTorch's ``nn.MultiheadAttention``: ``embed_dim`` features split
    into ``num_heads`` heads; key and value have ``kdim``/``vdim`` features (``embed_dim`` by
    default). Inputs are (L, N, E) ((N, L, E) with ``batch_first``) or unbatched (L, E).

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``, the weights
    averaged over the heads unless ``average_attn_weights=False`` and None without
    ``need_weights``. Masks as PyTorch's: bool True means *do not attend*, a float mask is added
    to the scores; ``attn_mask`` (L, S) or (N * num_heads, L, S), ``key_padding_mask`` (N, S).

    >>> import ember
    >>> from ember import nn
    >>> mha = nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = ember.randn(4, 5, 8)
    >>> out, weights = mha(x, x, x)
    >>> out.shape, weights.shape
    ((4, 5, 8), (4, 5, 5))
    >>> [n for n, _ in mha.named_parameters()]
    ['in_proj_weight', 'in_proj_bias', 'out_proj.weight', 'out_proj.bias']
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        name = "MultiheadAttention"
        E, H = _ints(name, embed_dim=embed_dim, num_heads=num_heads)
        if E % H:
            raise InvalidParameterError(f"{name}: embed_dim {E} is not divisible by num_heads "
                                        f"{H}; expected a divisor of {E}", "num_heads", H)
        self.embed_dim = E
        self.kdim = E if kdim is None else _int(kdim, name, "kdim", 1)
        self.vdim = E if vdim is None else _int(vdim, name, "vdim", 1)
        self._qkv_same_embed_dim = self.kdim == E and self.vdim == E
        self.num_heads = H
        self.dropout = _prob(dropout, name, "dropout")
        self.batch_first = _bool(batch_first, name, "batch_first")
        self.head_dim = E // H
        for flag, value in (("bias", bias), ("add_bias_kv", add_bias_kv),
                            ("add_zero_attn", add_zero_attn)):
            _bool(value, name, flag)
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        kw = {"dtype": dt, "device": dev}
        if self._qkv_same_embed_dim:
            self.in_proj_weight = init.xavier_uniform((3 * E, E), **kw)
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.in_proj_weight = None
            self.q_proj_weight = init.xavier_uniform((E, E), **kw)
            self.k_proj_weight = init.xavier_uniform((E, self.kdim), **kw)
            self.v_proj_weight = init.xavier_uniform((E, self.vdim), **kw)
        self.in_proj_bias = init.zeros((3 * E,), **kw) if bias else None
        if add_bias_kv:
            self.bias_k = init.xavier_normal((1, 1, E), **kw)
            self.bias_v = init.xavier_normal((1, 1, E), **kw)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.out_proj = NonDynamicallyQuantizableLinear(E, E, bias=bias, device=dev, dtype=dt)
        if bias:
            init.zeros_(self.out_proj.bias)

    def _reset_parameters(self):
        """Draw the parameters again as ``__init__`` does."""
        for w in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight,
                  self.v_proj_weight):
            if w is not None:
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attend (see the class docstring for an example)."""
        for param, t in (("query", query), ("key", key), ("value", value)):
            check_tensor(t, "MultiheadAttention", param)
        swap = self.batch_first and query.ndim == 3
        if swap:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        return (out.transpose(0, 1) if swap else out), weights


class _Layer(Module):
    """What the encoder and decoder layers share: the feed-forward block and the norms."""

    def _build(self, name, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
               batch_first, norm_first, bias, device, dtype, norms):
        d_model, nhead, dim_feedforward = _ints(name, d_model=d_model, nhead=nhead,
                                                dim_feedforward=dim_feedforward)
        p = _prob(dropout, name, "dropout")
        eps = _positive_real(layer_norm_eps, name, "layer_norm_eps")
        _bool(batch_first, name, "batch_first")
        _bool(bias, name, "bias")
        act = _activation(activation, name)
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=p, bias=bias,
                                            batch_first=batch_first, **kw)
        if norms == 3:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=p, bias=bias,
                                                     batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(p)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = _bool(norm_first, name, "norm_first")
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=eps, bias=bias, **kw))
        for i in range(1, norms + 1):
            setattr(self, f"dropout{i}", Dropout(p))
        self.activation_relu_or_gelu = 1 if act is relu else 2 if act is gelu else 0
        self.activation = act

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x, drop):
        return drop(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _check_input(x, layer, param, d_model):
    check_tensor(x, layer, param)
    if x.ndim not in (2, 3) or x.shape[-1] != d_model:
        raise ShapeMismatchError(f"{layer}: {param} has shape {_shape_str(x.shape)}; expected "
                                 f"(S, N, {d_model}), (N, S, {d_model}) with batch_first or "
                                 f"unbatched (S, {d_model})", expected=d_model,
                                 actual=tuple(x.shape))
    return x


class TransformerEncoderLayer(_Layer):
    """Self-attention and a feed-forward block, each with a residual connection and a
    LayerNorm (after it, or before it with ``norm_first``), PyTorch's
    ``nn.TransformerEncoderLayer``. ``activation``: "relu", "gelu" or a callable.
    ``forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``.

    >>> import ember
    >>> from ember import nn
    >>> layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation="gelu")
    >>> layer(ember.randn(5, 3, 8)).shape
    (5, 3, 8)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self._build("TransformerEncoderLayer", d_model, nhead, dim_feedforward, dropout,
                    activation, layer_norm_eps, batch_first, norm_first, bias, device, dtype, 2)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """Encode ``src`` (see the class docstring for an example)."""
        x = _check_input(src, "TransformerEncoderLayer", "src", self.self_attn.embed_dim)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x), self.dropout2)
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x, self.dropout2))


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's output (``memory``) and a feed-forward
    block, each with a residual connection and a LayerNorm (after it, or before it with
    ``norm_first``), PyTorch's ``nn.TransformerDecoderLayer``.
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.

    >>> import ember
    >>> from ember import nn
    >>> layer = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> layer(ember.randn(3, 4, 8), ember.randn(3, 6, 8)).shape
    (3, 4, 8)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self._build("TransformerDecoderLayer", d_model, nhead, dim_feedforward, dropout,
                    activation, layer_norm_eps, batch_first, norm_first, bias, device, dtype, 3)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """Decode ``tgt`` attending to ``memory`` (see the class docstring for an example)."""
        d = self.self_attn.embed_dim
        x = _check_input(tgt, "TransformerDecoderLayer", "tgt", d)
        mem = _check_input(memory, "TransformerDecoderLayer", "memory", d)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), mem, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            return x + self._ff_block(self.norm3(x), self.dropout3)
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, mem, memory_mask, memory_key_padding_mask,
                                           memory_is_causal))
        return self.norm3(x + self._ff_block(x, self.dropout3))


def _stack(layer, num_layers, norm, name, param, cls):
    if not isinstance(layer, cls):
        raise KindError(f"{name}: {param} must be a {cls.__name__}, got "
                        f"{type(layer).__name__}")
    n = _int(num_layers, name, "num_layers", 0)
    if norm is not None and not isinstance(norm, Module):
        raise KindError(f"{name}: norm must be a Module or None, got {type(norm).__name__}")
    return ModuleList([copy.deepcopy(layer) for _ in range(n)]), n


def _causal_flag(value, name, param):
    if value is None:
        return False
    if value is not True and value is not False:
        raise InvalidParameterError(f"{name}: {param} must be a bool or None, got {value!r}",
                                    param, value)
    return value


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (deep copies: each its own parameters), then
    ``norm`` if given, PyTorch's ``nn.TransformerEncoder``. ``enable_nested_tensor`` and
    ``mask_check`` are accepted (PyTorch's inference fast path; the values are the same).
    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``.

    >>> import ember
    >>> from ember import nn
    >>> enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8))
    >>> enc(ember.randn(5, 3, 8)).shape, len(enc.layers)
    ((5, 3, 8), 2)
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        name = "TransformerEncoder"
        self.layers, self.num_layers = _stack(encoder_layer, num_layers, norm, name,
                                              "encoder_layer", TransformerEncoderLayer)
        self.norm = norm
        self.enable_nested_tensor = _bool(enable_nested_tensor, name, "enable_nested_tensor")
        self.use_nested_tensor = False
        self.mask_check = _bool(mask_check, name, "mask_check")

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Encode ``src`` (see the class docstring for an example)."""
        check_tensor(src, "TransformerEncoder", "src")
        causal = _causal_flag(is_causal, "TransformerEncoder", "is_causal")
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=causal)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (deep copies), then ``norm`` if given,
    PyTorch's ``nn.TransformerDecoder``. ``forward(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    tgt_is_causal=None, memory_is_causal=False)``.

    >>> import ember
    >>> from ember import nn
    >>> dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)
    >>> dec(ember.randn(4, 3, 8), ember.randn(6, 3, 8)).shape
    (4, 3, 8)
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers, self.num_layers = _stack(decoder_layer, num_layers, norm,
                                              "TransformerDecoder", "decoder_layer",
                                              TransformerDecoderLayer)
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Decode ``tgt`` attending to ``memory`` (see the class docstring for an example)."""
        check_tensor(tgt, "TransformerDecoder", "tgt")
        causal = _causal_flag(tgt_is_causal, "TransformerDecoder", "tgt_is_causal")
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=causal,
                      memory_is_causal=memory_is_causal)
        return x if self.norm is None else self.norm(x)


class _FacadeStatic:
    """A static method whose result is an ember.torch tensor when it is read from an
    ember.torch.nn class (those have ``_ember_layer``), an ember tensor otherwise."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner):
        facade = sys.modules.get("ember.torch._tensor")
        if facade is None or getattr(owner, "_ember_layer", None) is None:
            return self.fn

        @functools.wraps(self.fn)
        def call(*args, **kwargs):
            return facade.to_torch(self.fn(*args, **kwargs))
        return call


def _square_subsequent_mask(sz, device=None, dtype=None):
    """The causal mask of ``sz`` positions: a float (sz, sz) mask, ``-inf`` above the
    diagonal (a position may not attend to later ones) and 0 elsewhere.

    >>> from ember import nn
    >>> nn.Transformer.generate_square_subsequent_mask(3).tolist()
    [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]
    """
    name = "generate_square_subsequent_mask"
    n = _int(sz, name, "sz", 0)
    dt = _float_dtype(dtype, name)
    dev = as_device(device, name)
    later = ones(n, n, dtype="bool", device=dev).triu(1)
    return zeros(n, n, dtype=dt, device=dev).masked_fill(later, -math.inf)


class Transformer(Module):
    """An encoder-decoder transformer, PyTorch's ``nn.Transformer``: ``num_encoder_layers``
    encoder layers and ``num_decoder_layers`` decoder layers, each stack followed by a
    LayerNorm (or ``custom_encoder``/``custom_decoder``); every matrix parameter is drawn
    Xavier-uniform. ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None,
    src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)``;
    ``Transformer.generate_square_subsequent_mask(sz)`` makes the causal ``tgt_mask``.

    >>> import ember
    >>> from ember import nn
    >>> model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
    ...                        dim_feedforward=16)
    >>> mask = nn.Transformer.generate_square_subsequent_mask(4)
    >>> model(ember.randn(6, 3, 8), ember.randn(4, 3, 8), tgt_mask=mask).shape
    (4, 3, 8)
    """

    generate_square_subsequent_mask = _FacadeStatic(_square_subsequent_mask)

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        name = "Transformer"
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, bias, device, dtype)
        kw = {"eps": _positive_real(layer_norm_eps, name, "layer_norm_eps"), "bias": bias,
              "device": device, "dtype": dtype}
        for param, custom in (("custom_encoder", custom_encoder),
                              ("custom_decoder", custom_decoder)):
            if custom is not None and not isinstance(custom, Module):
                raise KindError(f"{name}: {param} must be a Module or None, got "
                                f"{type(custom).__name__}")
        if custom_encoder is None:
            custom_encoder = TransformerEncoder(TransformerEncoderLayer(*args),
                                                num_encoder_layers, LayerNorm(d_model, **kw))
        self.encoder = custom_encoder
        if custom_decoder is None:
            custom_decoder = TransformerDecoder(TransformerDecoderLayer(*args),
                                                num_decoder_layers, LayerNorm(d_model, **kw))
        self.decoder = custom_decoder
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self):
        """Draw every matrix parameter Xavier-uniform (as ``__init__`` does)."""
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src``, decode ``tgt`` (see the class docstring for an example)."""
        name = "Transformer"
        check_tensor(src, name, "src")
        check_tensor(tgt, name, "tgt")
        if src.ndim == 3 and tgt.ndim == 3:
            b = 0 if self.batch_first else 1
            if src.shape[b] != tgt.shape[b]:
                raise ShapeMismatchError(f"{name}: the batch number of src and tgt must be "
                                         f"equal; got src {_shape_str(src.shape)} and tgt "
                                         f"{_shape_str(tgt.shape)}", expected=src.shape[b],
                                         actual=tgt.shape[b])
        for param, t in (("src", src), ("tgt", tgt)):
            if t.shape[-1] != self.d_model:
                raise ShapeMismatchError(f"{name}: {param} has shape {_shape_str(t.shape)}; "
                                         f"the feature number must be d_model {self.d_model}",
                                         expected=self.d_model, actual=t.shape[-1])
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

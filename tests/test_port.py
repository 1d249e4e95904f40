"""A PyTorch program ports to ember by changing its imports.

tests/port/gpt_torch.py is a nanoGPT-style model and training loop written for PyTorch (token and
position embeddings, causal self-attention through a ``tril`` buffer and ``masked_fill`` or
through ``scaled_dot_product_attention``, LayerNorm, GELU, weight tying, ``nn.init.*_``, AdamW
with weight-decay groups, ``clip_grad_norm_``, a ``LambdaLR`` warmup + cosine schedule, greedy
top-k generation). The test runs that file as it is and with only its three import lines
changed to ember's, from the same initial weights and batches, and compares the losses.
"""

import os
import types

import numpy as np
import pytest
import torch

SCRIPT = os.path.join(os.path.dirname(__file__), "port", "gpt_torch.py")
TORCH_IMPORTS = ("import torch\n", "import torch.nn as nn\n",
                 "from torch.nn import functional as F\n")
EMBER_IMPORTS = ("import ember as torch\n", "import ember.nn as nn\n",
                 "from ember.nn import functional as F\n")


def _load(ember_imports):
    source = open(SCRIPT).read()
    for a, b in zip(TORCH_IMPORTS, EMBER_IMPORTS):
        assert source.count(a) == 1, a
        if ember_imports:
            source = source.replace(a, b)
    module = types.ModuleType("gpt_ember" if ember_imports else "gpt_torch")
    exec(compile(source, SCRIPT, "exec"), module.__dict__)
    return module


CFG = dict(vocab_size=29, block_size=16, n_embd=32, n_head=4, n_layer=2)


def _batches(steps, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    # a learnable sequence: each token is the previous one plus 1 or 2, modulo the vocabulary
    out = []
    for _ in range(steps):
        start = rng.integers(0, CFG["vocab_size"], (batch, 1))
        jumps = rng.integers(1, 3, (batch, CFG["block_size"]))
        seq = (start + np.concatenate([np.zeros((batch, 1), np.int64), np.cumsum(jumps, 1)], 1))
        seq %= CFG["vocab_size"]
        out.append((seq[:, :-1], seq[:, 1:]))
    return out


@pytest.mark.parametrize("flash", [False, True], ids=["masked_fill", "sdpa"])
def test_gpt_trains_like_pytorch_with_only_imports_changed(flash):
    cfg = dict(CFG, flash=flash)
    batches = _batches(100)
    reference, ported = _load(False), _load(True)

    torch.manual_seed(0)
    initial = reference.state_of(reference.GPT(cfg))
    t_model, t_losses = reference.train(cfg, batches, initial_state=initial)
    e_model, e_losses = ported.train(cfg, batches, initial_state=initial)

    assert len(e_losses) == len(t_losses) == 100
    assert all(isinstance(v, float) for v in e_losses)
    np.testing.assert_allclose(e_losses, t_losses, rtol=0, atol=1e-5)
    assert t_losses[-1] < 0.5 * t_losses[0]              # it learned something

    # the tied weight is one parameter in both
    assert e_model.transformer.wte.weight is e_model.lm_head.weight

    prompt = batches[0][0][:2, :4]
    t_out = t_model.generate(torch.tensor(prompt), 12, top_k=5)
    e_out = e_model.generate(ported.torch.tensor(prompt), 12, top_k=5)
    assert e_out.tolist() == t_out.tolist()

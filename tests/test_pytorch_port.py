"""docs/pytorch.md in practice: a small language model written once against PyTorch's API runs on
ember with only its imports changed (ModuleDict attributes, weight tying, ``nn.init.*_`` in an
``_init_weights`` hook, AdamW, ``clip_grad_norm_``, ``torch.topk`` sampling, ``.data``,
``.to(dtype=...)``, ``inference_mode``) and gives PyTorch's losses from the same weights."""

import numpy as np
import torch

import ember


def _program(torch, nn, F):
    """The PyTorch program; ``torch``, ``nn`` and ``F`` are its imports."""

    class TinyLM(nn.Module):
        def __init__(self, vocab, dim):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(vocab, dim),
                                                  h=nn.Linear(dim, dim), ln_f=nn.LayerNorm(dim)))
            self.lm_head = nn.Linear(dim, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight        # weight tying
            for m in self.modules():
                self._init_weights(m)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            x = self.transformer.wte(idx)
            x = x + torch.tanh(self.transformer.h(x))
            logits = self.lm_head(self.transformer.ln_f(x))
            if targets is None:
                return logits, None
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            return logits, loss

    def build(vocab, dim):
        return TinyLM(vocab, dim)

    def train(model, xs, ys, steps):
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=1e-2)
        losses, norms = [], []
        for step in range(steps):
            _, loss = model(xs, ys)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5).item())
            opt.step()
            losses.append(loss.item())
        return losses, norms

    @torch.inference_mode()
    def top_k_tokens(model, idx, k):
        logits, _ = model(idx)
        probs = F.softmax(logits[:, -1, :].to(dtype=torch.float), dim=-1)
        _, top = torch.topk(probs, k=k)
        v, _ = torch.topk(logits[:, -1, :], k)
        return top, v[:, [-1]]

    return build, train, top_k_tokens


def test_the_same_program_runs_on_torch_and_ember():
    rng = np.random.default_rng(0)
    vocab, dim, steps = 11, 8, 15
    xs = rng.integers(0, vocab, (4, 6))
    ys = np.roll(xs, -1, axis=1)
    build_t, train_t, topk_t = _program(torch, torch.nn, torch.nn.functional)
    build_e, train_e, topk_e = _program(ember, ember.nn, ember.nn.functional)
    torch.manual_seed(0)
    ember.manual_seed(0)
    mt, me = build_t(vocab, dim), build_e(vocab, dim)
    assert me.transformer.wte.weight is me.lm_head.weight            # still tied after init
    assert me.lm_head.weight.abs().max().item() < 0.2                # normal_(std=0.02) ran
    assert me.transformer.h.bias.abs().sum().item() == 0.0           # zeros_ ran
    assert list(me.state_dict()) == list(mt.state_dict())
    for (name, p), (_, pt) in zip(me.state_dict().items(), mt.state_dict().items()):
        p.data = ember.tensor(pt.detach().numpy())                   # the same initial weights
    assert me.transformer.wte.weight is me.lm_head.weight
    losses_t, norms_t = train_t(mt, torch.tensor(xs), torch.tensor(ys), steps)
    losses_e, norms_e = train_e(me, ember.tensor(xs), ember.tensor(ys), steps)
    np.testing.assert_allclose(losses_e, losses_t, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(norms_e, norms_t, rtol=1e-4, atol=1e-5)
    assert losses_e[-1] < losses_e[0]
    top_t, v_t = topk_t(mt, torch.tensor(xs), 3)
    top_e, v_e = topk_e(me, ember.tensor(xs), 3)
    np.testing.assert_array_equal(top_e.numpy(), top_t.numpy())
    np.testing.assert_allclose(v_e.numpy(), v_t.numpy(), rtol=1e-5, atol=1e-6)

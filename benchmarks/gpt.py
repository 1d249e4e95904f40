"""A nanoGPT-style character model, written once for ``gpt_step`` and ``gpt_forward``: the same
code builds it with ember and with PyTorch (``model("ember", ...)``, ``model("torch", ...)``),
ember's PyTorch-shaped API (``nn``, ``nn.functional``, ``arange``, ``from_numpy``) being the
only thing it uses.

The model: token and position embeddings, ``n_layer`` pre-LayerNorm blocks (causal
self-attention through ``scaled_dot_product_attention`` with ``is_causal=True``, then an MLP
4× wide with exact GELU), a final LayerNorm and a linear head (not tied to the token
embedding), cross-entropy on the next characters. No dropout. The weights come from NumPy
(``init_params``) so both libraries start from the same model, and the batches from
``batches``, so both train on the same data.

Nothing here imports a library at module level: each benchmark worker imports only its own.
"""

# the sizes of the benchmark (the full run) and of --quick
FULL = {"n_layer": 2, "n_head": 4, "n_embd": 64, "block": 64, "vocab": 65, "batch": 16}
QUICK = {"n_layer": 1, "n_head": 2, "n_embd": 8, "block": 8, "vocab": 65, "batch": 2}
LR = 1e-3
WEIGHT_DECAY = 0.1
BATCHES = 4  # distinct batches the timed steps cycle through


def param_shapes(p):
    """``(name, shape, init)`` of every parameter, named as both models' ``state_dict``;
    ``init`` is "normal", "proj" (normal scaled down by the depth, as nanoGPT's c_proj),
    "zeros" or "ones"."""
    c, v = p["n_embd"], p["vocab"]
    out = [("wte.weight", (v, c), "normal"), ("wpe.weight", (p["block"], c), "normal")]
    for i in range(p["n_layer"]):
        b = f"blocks.{i}."
        out += [(b + "ln_1.weight", (c,), "ones"), (b + "ln_1.bias", (c,), "zeros"),
                (b + "attn.c_attn.weight", (3 * c, c), "normal"),
                (b + "attn.c_attn.bias", (3 * c,), "zeros"),
                (b + "attn.c_proj.weight", (c, c), "proj"), (b + "attn.c_proj.bias", (c,), "zeros"),
                (b + "ln_2.weight", (c,), "ones"), (b + "ln_2.bias", (c,), "zeros"),
                (b + "mlp.c_fc.weight", (4 * c, c), "normal"),
                (b + "mlp.c_fc.bias", (4 * c,), "zeros"),
                (b + "mlp.c_proj.weight", (c, 4 * c), "proj"),
                (b + "mlp.c_proj.bias", (c,), "zeros")]
    out += [("ln_f.weight", (c,), "ones"), ("ln_f.bias", (c,), "zeros"),
            ("lm_head.weight", (v, c), "normal")]
    return out


def init_params(p, seed):
    """The initial weights as float32 NumPy arrays, nanoGPT's initialisation from ``seed``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    std_proj = 0.02 / (2 * p["n_layer"]) ** 0.5
    params = {}
    for name, shape, init in param_shapes(p):
        if init == "zeros":
            params[name] = np.zeros(shape, np.float32)
        elif init == "ones":
            params[name] = np.ones(shape, np.float32)
        else:
            std = 0.02 if init == "normal" else std_proj
            params[name] = (std * rng.standard_normal(shape)).astype(np.float32)
    return params


def batches(p, seed, count=BATCHES):
    """``count`` (inputs, targets) pairs of int64 arrays of shape (batch, block): windows of a
    random character stream, the targets shifted by one as in nanoGPT's ``get_batch``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    data = rng.integers(0, p["vocab"], 4096, dtype=np.int64)
    out = []
    for _ in range(count):
        starts = rng.integers(0, len(data) - p["block"] - 1, p["batch"])
        x = np.stack([data[s:s + p["block"]] for s in starts])
        y = np.stack([data[s + 1:s + 1 + p["block"]] for s in starts])
        out.append((x, y))
    return out


# -- the model, in either library ------------------------------------------------------------

def model(lib, p, params):
    """The GPT of library ``lib`` ("ember" or "torch") with ``params`` (a dict of NumPy arrays)
    loaded."""
    import importlib

    tensors = importlib.import_module(lib)
    nn = importlib.import_module(lib + ".nn")
    F = importlib.import_module(lib + ".nn.functional")

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(p["n_embd"], 3 * p["n_embd"])
            self.c_proj = nn.Linear(p["n_embd"], p["n_embd"])

        def forward(self, x):
            B, T, C = x.shape
            nh = p["n_head"]
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(B, T, nh, C // nh).transpose(1, 2)
            k = k.view(B, T, nh, C // nh).transpose(1, 2)
            v = v.view(B, T, nh, C // nh).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(p["n_embd"], 4 * p["n_embd"])
            self.c_proj = nn.Linear(4 * p["n_embd"], p["n_embd"])

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(p["n_embd"])
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(p["n_embd"])
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(p["vocab"], p["n_embd"])
            self.wpe = nn.Embedding(p["block"], p["n_embd"])
            self.blocks = nn.ModuleList([Block() for _ in range(p["n_layer"])])
            self.ln_f = nn.LayerNorm(p["n_embd"])
            self.lm_head = nn.Linear(p["n_embd"], p["vocab"], bias=False)

        def forward(self, idx):
            T = idx.shape[1]
            x = self.wte(idx) + self.wpe(tensors.arange(T))
            for block in self.blocks:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    gpt = GPT()
    gpt.load_state_dict({k: tensors.from_numpy(v) for k, v in params.items()})
    return gpt


def loss(lib, gpt, x, y):
    """The cross-entropy of ``gpt``'s next-character logits for inputs ``x`` and targets ``y``."""
    import importlib

    F = importlib.import_module(lib + ".nn.functional")
    logits = gpt(x)
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), y.view(-1))

#!/usr/bin/env python3
"""Real PyTorch programs, run unchanged on PyTorch and on ember.torch, losses compared.

    python3 benchmarks/real_programs.py DIR [NAME ...]

DIR holds the programs, copied as they are from the PyTorch project's examples and tutorials
(they are other people's code, so they are not part of ember; the note of the issue that added
this script says where each came from). Each program runs twice in a fresh process, in a
temporary directory, with a fixed seed:
1. as it is, on PyTorch;
2. with only its imports changed (``import torch`` -> ``import ember.torch as torch``,
   ``from torch.x import y`` -> ``from ember.torch.x import y`` ...), on ember.

Data downloads are replaced by local stand-ins (``benchmarks/standins``: a synthetic
torchvision MNIST/FashionMNIST), the same for both runs. ember draws random numbers from its own
streams (NumPy's PCG64), so for the comparison the ember run draws every random number that a
program asks for without a generator (initial weights, data, dropout masks) from PyTorch's CPU
generator, seeded the same: the two runs then start from the same weights and see the same
data, and their printed losses must agree. The script prints each program's losses side by side
and the largest relative difference, and exits non-zero when a program fails or differs.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STANDINS = os.path.join(HERE, "standins")

# name -> (file, argv, timeout s, relative tolerance of the losses[, how many of the first
# losses are compared: for programs whose later course is chaotic[, a line both runs must print]])
PROGRAMS = {
    "quickstart": ("tutorials_quickstart.py", [], 600, 1e-4),
    "polynomial_custom_function": ("tutorials_polynomial_custom_function.py", [], 300, 1e-4),
    "polynomial_nn": ("tutorials_polynomial_nn.py", [], 300, 1e-4),
    "polynomial_optim": ("tutorials_polynomial_optim.py", [], 300, 1e-4),
    "dynamic_net": ("tutorials_dynamic_net.py", [], 600, 1e-3),
    # stops at the first batch whose loss is below 1e-3: the first steps agree to 1e-7, but
    # float32 rounding of x ** 4 (NumPy's and PyTorch's powf) decides which batch that is
    "regression": ("examples_regression.py", [], 300, 0.05),
    "mnist": ("examples_mnist.py", ["--epochs", "1", "--log-interval", "10"], 900, 1e-3),
    # need gymnasium (pip install gymnasium): CartPole, trained until it is solved. Episodes are
    # chaotic: once a float32 rounding difference flips one sampled action (a probability
    # within 1e-7 of a draw) the trajectories part, so the first episodes are compared and
    # both runs must reach "Solved!"
    "reinforce": ("examples_reinforce.py", ["--log-interval", "1"], 1200, 1e-6, 2 * 40,
                  "Solved!"),
    "actor_critic": ("examples_actor_critic.py", ["--log-interval", "1"], 1200, 1e-6, 2 * 40,
                     "Solved!"),
    # a VAE written by someone else (the "Modern VAE in PyTorch" tutorial's model, as a script):
    # MultivariateNormal(mu, scale_tril=diag_embed(...)).rsample(), kl_divergence, AdamW,
    # clip_grad_norm_, torchvision.transforms.v2; 50 epochs, printing loss, KL and
    # reconstruction loss once an epoch. Its training is chaotic (gradient norms jump between
    # 5 and 60 from one step to the next): a float32 rounding difference of 1e-7 grows to 4e-5
    # in 12 epochs and to 1e-2 in the next two, whichever library makes it (PyTorch against
    # itself with its initial weights scaled by 1 + 2**-23 parts the same way), so the first 12
    # epochs (36 losses) are compared
    "modern_vae": ("modern_vae_mnist.py", [], 1200, 1e-4, 3 * 12),
}

_IMPORTS = [
    (re.compile(r"^(\s*)import torch\s*$", re.M), r"\1import ember.torch as torch"),
    (re.compile(r"^(\s*)import torch\.([\w.]+) as (\w+)\s*$", re.M),
     r"\1import ember.torch.\2 as \3"),
    (re.compile(r"^(\s*)import torch\.([\w.]+)\s*$", re.M),
     r"\1import ember.torch\n\1import ember.torch.\2"),
    (re.compile(r"^(\s*)from torch import ", re.M), r"\1from ember.torch import "),
    (re.compile(r"^(\s*)from torch\.([\w.]+) import ", re.M), r"\1from ember.torch.\2 import "),
]

_PRELUDE = r"""
import random, sys
import numpy as np
import torch as _pytorch
sys.path.insert(0, {standins!r})
random.seed(0)
np.random.seed(0)
_pytorch.manual_seed(0)
"""

# the ember run draws every random number from PyTorch's CPU generators: what a program asks for
# without a generator from PyTorch's default one, and what it (or ember.torch, e.g. a shuffling
# DataLoader, which seeds a generator of its own from the default one) asks of a seeded ember
# Generator from a PyTorch Generator seeded the same
_STREAMS = r"""
import ember, ember.torch as _et
import ember.backends.numpy as _nb
from ember.dtypes import as_dtype as _as_dtype

def _td(dtype):
    return getattr(_pytorch, _as_dtype(dtype).name)

_nb.random_generator = lambda seed: _pytorch.Generator().manual_seed(seed)
_get_state, _set_state = _nb.random_get_state, _nb.random_set_state
_nb.random_get_state = lambda gen: (gen.get_state().numpy() if isinstance(gen, _pytorch.Generator)
                                    else _get_state(gen))
def _restore(gen, raw):
    if not isinstance(gen, _pytorch.Generator):
        return _set_state(gen, raw)
    try:
        gen.set_state(_pytorch.from_numpy(np.asarray(raw)))
    except (RuntimeError, TypeError):
        return False
    return True
_nb.random_set_state = _restore

def _hook(name, draw):
    original = getattr(_nb, name)
    nargs = draw.__code__.co_argcount - 1
    def kernel(*args, **kwargs):
        gen = args[nargs] if len(args) > nargs else kwargs.get("gen")
        if gen is not None and not isinstance(gen, _pytorch.Generator):
            return original(*args, **kwargs)
        return draw(*args[:nargs], gen).numpy()
    setattr(_nb, name, kernel)

def _integers(shape, low, high, dtype, gen):
    if (low, high, tuple(shape)) == (0, 2**63 - 1, ()) and _as_dtype(dtype).name == "int64":
        # a seed for a fresh generator (a DataLoader's, a RandomSampler's): PyTorch draws it
        # with random_(), whose range is [0, 2**63)
        return _pytorch.empty((), dtype=_pytorch.int64).random_(generator=gen)
    return _pytorch.randint(low, high, shape, dtype=_td(dtype), generator=gen)

_hook("random_uniform", lambda shape, low, high, dtype, gen:
      _pytorch.empty(shape, dtype=_td(dtype)).uniform_(low, high, generator=gen))
_hook("random_normal", lambda shape, mean, std, dtype, gen:
      _pytorch.empty(shape, dtype=_td(dtype)).normal_(mean, std, generator=gen))
_hook("random_bernoulli", lambda shape, p, dtype, gen:
      _pytorch.empty(shape, dtype=_td(dtype) if _as_dtype(dtype).kind == "float"
                     else _pytorch.float32).bernoulli_(p, generator=gen).to(_td(dtype)))
_hook("random_integers", _integers)
_hook("random_permutation", lambda n, dtype, gen:
      _pytorch.randperm(n, dtype=_td(dtype), generator=gen))
_hook("random_categorical", lambda w, num_samples, replacement, gen: _pytorch.multinomial(
      _pytorch.from_numpy(np.ascontiguousarray(w)), num_samples, replacement, generator=gen))
_seed = _et.manual_seed
def _manual_seed(seed):
    _pytorch.manual_seed(seed)
    return _seed(seed)
_et.manual_seed = _manual_seed
"""


_RUN = r"""
import runpy
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def ported(source):
    """``source`` with its PyTorch imports changed to ember.torch's."""
    for pattern, repl in _IMPORTS:
        source = pattern.sub(repl, source)
    return source


def run(path, argv, timeout, ember):
    source = open(path).read()
    prelude = _PRELUDE.format(standins=STANDINS)
    if ember:
        source = ported(source)
        prelude += _STREAMS
    env = dict(os.environ, PYTHONPATH=ROOT, STANDIN_TORCH="ember.torch" if ember else "torch",
               OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, os.path.basename(path))
        with open(script, "w") as f:
            f.write(source)
        runner = os.path.join(tmp, "_run.py")
        with open(runner, "w") as f:
            f.write(prelude + _RUN)
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, runner, script, *argv], cwd=tmp, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            return None, out + f"\n[timed out after {timeout} s]", time.perf_counter() - start
        return proc.returncode, out, time.perf_counter() - start


_LOSS = re.compile(r"(?:loss|reward)[^\d\-]*(-?\d+\.\d+(?:e[-+]?\d+)?)", re.I)
_NUMBERED = re.compile(r"^\d+ (-?\d+\.\d+(?:e[-+]?\d+)?)$", re.M)


def losses(text):
    """The losses a program printed: numbers after "loss" (or "reward", for the reinforcement
    learning programs), or lines ``step value``."""
    found = [float(m) for m in _LOSS.findall(text)]
    return found or [float(m) for m in _NUMBERED.findall(text)]


def compare(name, directory):
    file, argv, timeout, rtol, *rest = PROGRAMS[name]
    prefix, must = (rest + [None, None])[:2]
    path = os.path.join(directory, file)
    rc_t, out_t, time_t = run(path, argv, timeout, ember=False)
    rc_e, out_e, time_e = run(path, argv, timeout, ember=True)
    ok = rc_t == 0 and rc_e == 0
    lt, le = losses(out_t), losses(out_e)
    if must:
        ok = ok and must in out_t and must in out_e
    if prefix:
        lt, le = lt[:prefix], le[:prefix]
    worst = None
    if ok and lt and len(lt) == len(le):
        worst = max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(lt, le))
        ok = worst <= rtol
    else:
        ok = False
    print(f"== {name} ({file}): {'same losses' if ok else 'DIFFERENT'}; PyTorch {time_t:.1f} s, "
          f"ember {time_e:.1f} s; {len(lt)} losses; largest relative difference "
          f"{worst if worst is None else f'{worst:.2e}'}")
    for a, b in list(zip(lt, le))[:3] + list(zip(lt, le))[-2:]:
        print(f"   PyTorch {a:<14.6g} ember {b:<14.6g}")
    if not ok:
        print("-- PyTorch's output (tail):\n" + out_t[-1500:])
        print("-- ember's output (tail):\n" + out_e[-3000:])
    return ok


def main(argv):
    if not argv:
        sys.exit(__doc__)
    directory, names = argv[0], argv[1:] or list(PROGRAMS)
    results = {name: compare(name, directory) for name in names}
    print("\n" + " ".join(f"{n}: {'ok' if r else 'FAILED'}" for n, r in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

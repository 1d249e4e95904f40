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

A program is a file, or a directory of modules run as its ``main.py`` (every ``.py`` file of it
is copied and ported). Data downloads are replaced by local stand-ins (``benchmarks/standins``:
a synthetic torchvision MNIST/FashionMNIST and FakeData, a generated text corpus in the layout
of WikiText-2), the same for both runs. ember draws random numbers from its own
streams (NumPy's PCG64), so for the comparison the ember run draws every random number that a
program asks for without a generator (initial weights, data, dropout masks) from PyTorch's CPU
generator, seeded the same, and the numbers drawn from a generator the program (or a
DataLoader's sampler) makes from a PyTorch generator of the same seed: the two runs then
start from the same weights and see the same data, and their printed losses must agree. The
script prints each program's losses side by side and the largest relative difference, and
exits non-zero when a program fails or differs.
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

# name -> (file or directory (or a tuple of them, run in turn), argv, timeout s, relative
# tolerance of the losses[, options: "compare": how many of the first losses are compared, for
# programs whose later course is chaotic; "must_print": what both runs must print; "env":
# environment variables of both runs])
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
    "reinforce": ("examples_reinforce.py", ["--log-interval", "1"], 1200, 1e-6,
                  {"compare": 2 * 40, "must_print": "Solved!"}),
    "actor_critic": ("examples_actor_critic.py", ["--log-interval", "1"], 1200, 1e-6,
                     {"compare": 2 * 40, "must_print": "Solved!"}),
    # its data step first (generate_sine_wave.py: torch.save of a NumPy array, which the
    # training script's torch.load reads only with weights_only=False: PyTorch's own switch
    # for programs written before 2.6); LSTMCell in float64, LBFGS (its closure prints each
    # evaluation's loss at full precision)
    "time_sequence_prediction": (("examples_time_seq_data.py", "examples_time_seq.py"),
                                 ["--steps", "2"], 900, 1e-6,
                                 {"env": {"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}}),
    # LSTM(batch_first), BatchNorm1d, Dropout2d, Adadelta; losses printed to 6 digits
    "mnist_rnn": ("examples_mnist_rnn.py", ["--epochs", "1", "--log-interval", "5"], 900, 1e-4),
    # a directory of modules on a generated corpus (benchmarks/standins/make_wikitext.py):
    # nn.LSTM with dropout, and nn.Transformer's encoder with a causal mask; its losses are
    # printed to 2 decimals, so one unit in the last place of a loss near 3.3 is 3e-3
    "word_language_model_lstm": ("examples_word_language_model", [
        "--data", os.path.join(STANDINS, "wikitext-2"), "--model", "LSTM", "--epochs", "2",
        "--emsize", "32", "--nhid", "32", "--bptt", "20", "--log-interval", "2"], 600, 3e-3),
    # lr 2: the default 20 (the LSTM's) makes the transformer diverge (losses jump to 10-20),
    # and a diverging run magnifies float32 rounding; at 2 it learns (6.2 -> 2.2)
    "word_language_model_transformer": ("examples_word_language_model", [
        "--data", os.path.join(STANDINS, "wikitext-2"), "--model", "Transformer", "--epochs", "2",
        "--emsize", "32", "--nhid", "32", "--bptt", "20", "--log-interval", "2", "--lr", "2"],
        600, 3e-3),
    # ConvTranspose2d, BatchNorm2d, LeakyReLU, BCELoss, two Adams on FakeData. A GAN's course
    # is chaotic: float32 rounding (7e-8 in the second step's losses) grows to 1e-5 by the
    # eighth step and 0.2 by the fiftieth, so the first 8 steps are compared (16 losses,
    # printed to 4 decimals: 2e-4 is one unit in the last place of a loss near 0.5)
    "dcgan": ("examples_dcgan.py", ["--dataset", "fake", "--niter", "1", "--batchSize", "16",
              "--ngf", "8", "--ndf", "8", "--nz", "16", "--workers", "0", "--manualSeed", "1"],
              900, 2e-4, {"compare": 2 * 8}),
    # a VAE written by someone else (the "Modern VAE in PyTorch" tutorial's model, as a script):
    # MultivariateNormal(mu, scale_tril=diag_embed(...)).rsample(), kl_divergence, AdamW,
    # clip_grad_norm_, torchvision.transforms.v2; 50 epochs, printing loss, KL and
    # reconstruction loss once an epoch. Its training is chaotic (gradient norms jump between
    # 5 and 60 from one step to the next): a float32 rounding difference of 1e-7 grows to 4e-5
    # in 12 epochs and to 1e-2 in the next two, whichever library makes it (PyTorch against
    # itself with its initial weights scaled by 1 + 2**-23 parts the same way), so the first 12
    # epochs (36 losses) are compared
    "modern_vae": ("modern_vae_mnist.py", [], 1200, 1e-4, {"compare": 3 * 12}),
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
_nb = ember.Device("cpu").backend  # the NumPy backend: its kernels live on the instance
from ember.dtypes import as_dtype as _as_dtype

def _td(dtype):
    return getattr(_pytorch, _as_dtype(dtype).name)

# a generator the program makes (ember.torch.Generator, or a sampler's own) draws from a
# PyTorch generator started from the same seed
_generators = {}
_make_generator = _nb.random_generator
def _random_generator(seed):
    gen = _make_generator(seed)
    _generators[id(gen)] = (gen, _pytorch.Generator().manual_seed(seed))
    return gen
_nb.random_generator = _random_generator

def _hook(name, draw):
    original = getattr(_nb, name)
    arity = draw.__code__.co_argcount - 1
    def kernel(*args, **kwargs):
        gen = args[-1] if len(args) > arity else kwargs.get("gen")
        twin = None
        if gen is not None:
            entry = _generators.get(id(gen))
            if entry is None or entry[0] is not gen:
                return original(*args, **kwargs)
            twin = entry[1]
        return draw(*args[:arity], twin).numpy()
    setattr(_nb, name, kernel)

_hook("random_uniform", lambda shape, low, high, dtype, g:
      _pytorch.empty(shape, dtype=_td(dtype)).uniform_(low, high, generator=g))
_hook("random_normal", lambda shape, mean, std, dtype, g:
      _pytorch.empty(shape, dtype=_td(dtype)).normal_(mean, std, generator=g))
_hook("random_bernoulli", lambda shape, p, dtype, g:
      _pytorch.empty(shape, dtype=_td(dtype) if _as_dtype(dtype).kind == "float"
                     else _pytorch.float32).bernoulli_(p, generator=g).to(_td(dtype)))
_hook("random_integers", lambda shape, low, high, dtype, g:
      _pytorch.randint(low, high, shape, dtype=_td(dtype), generator=g) if high < 2**63 else
      _pytorch.empty(shape, dtype=_td(dtype)).random_(generator=g))  # [0, 2**63): a seed
_hook("random_permutation", lambda n, dtype, g: _pytorch.randperm(n, dtype=_td(dtype),
                                                                  generator=g))
_hook("random_categorical", lambda w, num_samples, replacement, g: _pytorch.multinomial(
      _pytorch.from_numpy(np.ascontiguousarray(w)), num_samples, replacement, generator=g))
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


def sources(path):
    """The files of the program at ``path``: the file itself, or every ``.py`` file of a
    directory (a program of several modules, run as its ``main.py``)."""
    if not os.path.isdir(path):
        return [path], os.path.basename(path)
    files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
    return files, "main.py"


def run(paths, argv, timeout, ember, env=None):
    """Runs the program at ``paths`` (a path, or a tuple of them: a data-making step first,
    each run in turn in the same directory, ``argv`` given to the last); returns its exit
    status (None: timed out), its output and the seconds it took."""
    paths = paths if isinstance(paths, tuple) else (paths,)
    prelude = _PRELUDE.format(standins=STANDINS)
    if ember:
        prelude += _STREAMS
    env = dict(os.environ, PYTHONPATH=ROOT, STANDIN_TORCH="ember.torch" if ember else "torch",
               OMP_NUM_THREADS="1", **(env or {}))
    outputs, start = [], time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runner = os.path.join(tmp, "_run.py")
        with open(runner, "w") as f:
            f.write(prelude + _RUN)
        for k, path in enumerate(paths):
            files, main = sources(path)
            for file in files:
                source = open(file).read()
                with open(os.path.join(tmp, os.path.basename(file)), "w") as f:
                    f.write(ported(source) if ember else source)
            args = argv if k == len(paths) - 1 else []
            proc = subprocess.Popen([sys.executable, runner, os.path.join(tmp, main), *args],
                                    cwd=tmp, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            try:
                out, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
                outputs.append(out + f"\n[timed out after {timeout} s]")
                return None, "".join(outputs), time.perf_counter() - start
            outputs.append(out)
            if proc.returncode != 0:
                break
        return proc.returncode, "".join(outputs), time.perf_counter() - start


_LOSS = re.compile(r"(?:loss|reward)[^\d\-]*(-?\d+\.\d+(?:e[-+]?\d+)?)", re.I)
_NUMBERED = re.compile(r"^\d+ (-?\d+\.\d+(?:e[-+]?\d+)?)$", re.M)


def losses(text):
    """The losses a program printed: numbers after "loss" (or "reward", for the reinforcement
    learning programs), or lines ``step value``."""
    found = [float(m) for m in _LOSS.findall(text)]
    return found or [float(m) for m in _NUMBERED.findall(text)]


def compare(name, directory):
    file, argv, timeout, rtol, *rest = PROGRAMS[name]
    options = rest[0] if rest else {}
    path = tuple(os.path.join(directory, f) for f in file) if isinstance(file, tuple) else \
        os.path.join(directory, file)
    env = options.get("env", {})
    rc_t, out_t, time_t = run(path, argv, timeout, ember=False, env=env)
    rc_e, out_e, time_e = run(path, argv, timeout, ember=True, env=env)
    ok = rc_t == 0 and rc_e == 0
    lt, le = losses(out_t), losses(out_e)
    if "compare" in options:
        lt, le = lt[:options["compare"]], le[:options["compare"]]
    if "must_print" in options:
        ok = ok and options["must_print"] in out_t and options["must_print"] in out_e
    worst = None
    if ok and lt and len(lt) == len(le):
        worst = max(abs(a - b) / max(abs(a), 1e-12) for a, b in zip(lt, le))
        ok = worst <= rtol
    else:
        ok = False
    shown = " then ".join(file) if isinstance(file, tuple) else file
    print(f"== {name} ({shown}): {'same losses' if ok else 'DIFFERENT'}; PyTorch {time_t:.1f} s, "
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

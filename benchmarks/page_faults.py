"""Page faults and time per step of a training case, with and without ember's buffer pool.

Each setting runs in its own process (alternated, several rounds; the table keeps the minimum
over rounds): ``pool`` is ember as it comes, ``no pool`` sets ``EMBER_POOL_BYTES=0``. A process
builds the case, runs warm-up steps, then counts the minor page faults (``ru_minflt``), the
system and total CPU time (user + system: what the step costs, less sensitive to other work on
the machine than the wall time) and the wall time of the measured steps.

    python benchmarks/page_faults.py                       # mlp_step and gpt_port
    python benchmarks/page_faults.py --cases mlp_step,cnn_step --steps 50 --rounds 5
    python benchmarks/page_faults.py --cases gpt_port       # the nanoGPT-style model's step
    python benchmarks/page_faults.py --lib torch           # PyTorch's numbers, for reference

Threads are pinned as ``run.py`` pins them (``--threads``, default 2).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = {"pool": {}, "no pool": {"EMBER_POOL_BYTES": "0"}}
GPT_SCRIPT = os.path.join(os.path.dirname(HERE), "tests", "port", "gpt_torch.py")
GPT_CFG = dict(vocab_size=65, block_size=64, n_embd=128, n_head=4, n_layer=2, flash=False)
GPT_BATCH = 16


def gpt_port(lib):
    """A training step of the nanoGPT-style model of tests/port/gpt_torch.py (``GPT_CFG``, batch
    ``GPT_BATCH``): PyTorch's program as written, or with its imports changed to ember's."""
    import types

    import numpy as np

    source = open(GPT_SCRIPT).read()
    if lib == "ember":
        for a, b in (("import torch\n", "import ember as torch\n"),
                     ("import torch.nn as nn\n", "import ember.nn as nn\n"),
                     ("from torch.nn import functional as F\n",
                      "from ember.nn import functional as F\n")):
            source = source.replace(a, b)
    module = types.ModuleType("gpt_" + lib)
    exec(compile(source, GPT_SCRIPT, "exec"), module.__dict__)
    torch = module.torch
    torch.manual_seed(0)
    model = module.GPT(GPT_CFG)
    optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3, betas=(0.9, 0.95))
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, GPT_CFG["vocab_size"], (GPT_BATCH, GPT_CFG["block_size"] + 1))
    x, y = torch.tensor(tokens[:, :-1]), torch.tensor(tokens[:, 1:])

    def step():
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss
    return step


def measure(case_name, lib, warmup, steps):
    """One process's numbers for ``case_name``: faults, system ms and wall ms per step."""
    import resource

    sys.path.insert(0, HERE)
    import cases

    if case_name == "gpt_port":
        step = gpt_port(lib)
    else:
        case = cases.by_name()[case_name]
        step = case.setups[lib](case.params(quick=False))
    if lib == "ember":
        from ember.backends.numpy import buffers as pool, jit

        jit.wait()
        pool_on = pool.stats()["installed"]
    else:
        pool_on = False
    for _ in range(warmup):
        step()
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for _ in range(steps):
        step()
    t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    return {"faults": (r1.ru_minflt - r0.ru_minflt) / steps,
            "sys_ms": (r1.ru_stime - r0.ru_stime) * 1e3 / steps,
            "cpu_ms": (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3 / steps,
            "ms": (t1 - t0) * 1e3 / steps, "pool": pool_on}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="mlp_step,gpt_port")
    parser.add_argument("--lib", default="ember", choices=("ember", "torch", "numpy"))
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a worker process: the case to run
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.lib, args.warmup, args.steps)))
        return
    sys.path.insert(0, HERE)
    import helpers

    base, _ = helpers.worker_env(args.threads, os.path.dirname(HERE))
    settings = SETTINGS if args.lib == "ember" else {args.lib: {}}
    print(f"{'case':<12} {'setting':<9} {'faults/step':>12} {'sys ms/step':>12} "
          f"{'cpu ms/step':>12} {'ms/step':>9}")
    for name in args.cases.split(","):
        best = {}
        for _ in range(args.rounds):
            for label, env in settings.items():
                out = subprocess.run(
                    [sys.executable, __file__, "--one", name, "--lib", args.lib,
                     "--warmup", str(args.warmup), "--steps", str(args.steps)],
                    env={**base, **env}, capture_output=True, text=True, check=True)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                if label in best:
                    got = {k: min(v, best[label][k]) if k != "pool" else v for k, v in got.items()}
                best[label] = got
        for label, got in best.items():
            mark = "" if got["pool"] or label != "pool" else "  (pool not installed)"
            print(f"{name:<12} {label:<9} {got['faults']:>12.0f} {got['sys_ms']:>12.2f} "
                  f"{got['cpu_ms']:>12.2f} {got['ms']:>9.2f}{mark}")


if __name__ == "__main__":
    main()

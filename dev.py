#!/usr/bin/env python3
"""ember's developer entry point: creates or reuses .venv, installs what a job needs, runs it.

    python3 dev.py run [ARGS]   the main job (python -m ember ARGS; default: train, the digits CNN);
                                with --nproc N it also installs PyTorch (ember[distributed])
    python3 dev.py test [ARGS]  the whole test suite (pytest ARGS), once per backend: the NumPy
                                backend ("cpu"), then the PyTorch backend ("torch:cpu"), then
                                the NumPy backend without compiled kernels (EMBER_JIT=0) on the
                                ops with compiled kernels (JIT_TESTS), then the Array API
                                standard's reference library ("xp:array_api_strict"), then JAX
                                ("xp:jax") on the spec's examples, the tour and the gradient
                                oracle (JAX_TESTS); EMBER_DEVICE=NAME and/or EMBER_JIT=0 run
                                one pass only, on the whole suite
    python3 dev.py bench        the benchmarks
"""

import hashlib
import os
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
PY = os.path.join(VENV, "bin", "python")

RUNTIME = ["numpy>=2", "ml_dtypes>=0.4"]
TRAIN = ["scikit-learn>=1.3", "tqdm>=4.60", "matplotlib>=3.7", "safetensors>=0.8"]
DISTRIBUTED = ["torch>=2.4", "array-api-compat>=1.12"]  # torch.distributed, for `run train --nproc N` (ember[distributed])
# the Array API libraries ember runs on as devices (xp:array_api_strict, xp:jax, xp:dask)
XP = ["array-api-strict>=2.3", "jax>=0.4.35", "dask[array]>=2024.8", "distributed>=2024.8"]
TEST = ["pytest>=8", "hypothesis>=6", "pytest-xdist>=3", "torch==2.13.0", "scipy>=1.10",
        "array-api-compat>=1.12", "onnx>=1.16", "onnxruntime>=1.17"] + XP
JIT_TESTS = ["tests/ops", "tests/nn", "tests/backends"]  # where compiled kernels replace NumPy's
# JAX compiles each op at each new shape, so its pass runs a subset: the spec's examples, the
# tour, the gradient oracle (docs/devices.md gives the counts of the other areas on JAX)
JAX_TESTS = ["tests/spec", "tests/test_tour.py", "tests/autodiff/test_gradients.py"]
NO_TESTS = 5  # pytest's exit code when it collected no test
JOBS = {"run": RUNTIME + TRAIN, "test": RUNTIME + TRAIN + TEST, "bench": RUNTIME + TRAIN + TEST + ["threadpoolctl"]}


def ensure(requirements):
    if not os.path.exists(PY):
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = os.path.join(VENV, ".ember-" + hashlib.sha1(" ".join(requirements).encode()).hexdigest()[:12])
    if not os.path.exists(stamp):
        print("installing " + " ".join(requirements) + " ...", flush=True)
        subprocess.run([PY, "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
                       check=True)
        open(stamp, "w").close()


def test_passes(rest):
    """(device, EMBER_JIT, test paths) of each pass: the NumPy backend with its compiled kernels
    (compiled on first use, so every run takes the same path), the PyTorch backend, the NumPy
    backend's own kernels alone (EMBER_JIT=0) on the tests of the ops with compiled kernels, the
    Array API standard's reference library (xp:array_api_strict), and JAX (xp:jax) on JAX_TESTS.
    When ARGS name test paths, every pass runs those; other ARGS (-x, -k NAME) apply to each
    pass's own tests. EMBER_DEVICE and EMBER_JIT, when set, choose one pass, on the whole suite
    (``EMBER_DEVICE=xp:jax`` runs all of it on JAX: docs/devices.md)."""
    device, jit = os.environ.get("EMBER_DEVICE"), os.environ.get("EMBER_JIT")
    if device or jit:
        return [(device or "cpu", jit or "sync", [])]
    paths = any(os.path.exists(os.path.join(ROOT, a.split("::")[0]))
                for a in rest if not a.startswith("-"))
    return [("cpu", "sync", []), ("torch:cpu", "sync", []),
            ("cpu", "0", [] if paths else JIT_TESTS), ("xp:array_api_strict", "sync", []),
            ("xp:jax", "sync", [] if paths else JAX_TESTS)]


def main(argv):
    job = argv[0] if argv else "run"
    if job not in JOBS:
        sys.exit(f"dev.py: unknown job {job!r}; expected one of {', '.join(JOBS)}")
    rest = argv[1:]
    requirements = JOBS[job]
    if job == "run" and any(a == "--nproc" or a.startswith("--nproc=") or a.startswith("--device")
                            for a in rest):
        requirements = requirements + DISTRIBUTED  # torch.distributed, or a torch device
    ensure(requirements)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if job == "run":
        cmd = [PY, "-m", "ember", *(rest or ["train"])]
    elif job == "test":
        failed = 0
        for device, jit, paths in test_passes(rest):
            print(f"dev.py test: the suite on device {device}, EMBER_JIT={jit}", flush=True)
            code = subprocess.call([PY, "-m", "pytest", "-q", "-n", "2", *rest, *paths],
                                   cwd=ROOT, env=dict(env, EMBER_DEVICE=device, EMBER_JIT=jit))
            if code not in (0, NO_TESTS):  # -k NAME may select nothing of a pass's subset
                failed = 1
        sys.exit(failed)
    else:
        cmd = [PY, os.path.join(ROOT, "benchmarks", "run.py"), *rest]
    sys.exit(subprocess.call(cmd, cwd=ROOT, env=env))


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""ember's developer entry point: creates or reuses .venv, installs what a job needs, runs it.

    python3 dev.py run [ARGS]   the main job (python -m ember ARGS; default: train, the digits CNN);
                                with --nproc N it also installs PyTorch (ember[distributed])
    python3 dev.py test [ARGS]  the whole test suite (pytest ARGS), once per backend: the NumPy
                                backend ("cpu"), then the PyTorch backend ("torch:cpu");
                                EMBER_DEVICE=NAME python3 dev.py test runs one backend only
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
DISTRIBUTED = ["torch>=2.4"]  # torch.distributed, for `run train --nproc N` (ember[distributed])
TEST = ["pytest>=8", "hypothesis>=6", "pytest-xdist>=3", "torch==2.13.0", "scipy>=1.10",
        "array-api-compat>=1.12"]
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
        devices = [os.environ["EMBER_DEVICE"]] if os.environ.get("EMBER_DEVICE") else \
            ["cpu", "torch:cpu"]
        failed = 0
        for device in devices:
            print(f"dev.py test: the suite on device {device}", flush=True)
            failed |= subprocess.call([PY, "-m", "pytest", "-q", "-n", "2", *rest], cwd=ROOT,
                                      env=dict(env, EMBER_DEVICE=device))
        sys.exit(failed)
    else:
        cmd = [PY, os.path.join(ROOT, "benchmarks", "run.py"), *rest]
    sys.exit(subprocess.call(cmd, cwd=ROOT, env=env))


if __name__ == "__main__":
    main(sys.argv[1:])

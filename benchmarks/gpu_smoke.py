"""The suite's fast subset on a CUDA device: one command for a machine with a GPU.

    python3 benchmarks/gpu_smoke.py              # torch:cuda:0
    python3 benchmarks/gpu_smoke.py torch:cuda:1 -x

Runs the tests that any backend must pass (ops, autodiff, nn, optim, tensor and dtype tests)
with EMBER_DEVICE set to the device, so every tensor the tests create lives on the GPU and is
compared against PyTorch on the CPU. Exits 2 without running anything when CUDA is absent.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = ["tests/ops", "tests/autodiff", "tests/nn", "tests/optim", "tests/test_tensor.py",
        "tests/test_dtypes.py", "tests/backends"]


def main(argv):
    device = argv[0] if argv and not argv[0].startswith("-") else "torch:cuda:0"
    rest = argv[1:] if argv and not argv[0].startswith("-") else argv
    try:
        import torch
    except ImportError:
        print("gpu_smoke: PyTorch is not installed (pip install 'ember[torch]')", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpu_smoke: no CUDA device here; nothing run", file=sys.stderr)
        return 2
    print(f"gpu_smoke: {torch.cuda.get_device_name(0)}, the fast subset on {device}", flush=True)
    env = dict(os.environ, EMBER_DEVICE=device,
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            *FAST, *rest], cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``import ember`` stays cheap: the heavy libraries it can use (ml_dtypes for bfloat16, PyTorch,
SciPy, scikit-learn, ...) are imported on first use, not at ``import ember``."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("ml_dtypes", "torch", "scipy", "sklearn", "safetensors", "matplotlib", "tqdm",
         "array_api_compat")


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("EMBER_DEVICE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_import_ember_leaves_the_heavy_libraries_unloaded():
    loaded = _run(f"import sys, ember; print(*[m for m in {HEAVY!r} if m in sys.modules])")
    assert loaded == []


@pytest.mark.numpy_only
def test_bfloat16_loads_ml_dtypes_on_first_use():
    out = _run("import sys, numpy as np, ember\n"
               "t = ember.tensor([1.5, -2.0]).cast('bfloat16')\n"
               "print('ml_dtypes' in sys.modules, t.dtype, t.tolist(), t.numpy().dtype)\n"
               "import ml_dtypes\n"
               "u = ember.tensor(np.array([0.5], dtype=ml_dtypes.bfloat16))\n"
               "print(u.dtype)")
    assert out == ["True", "bfloat16", "[1.5,", "-2.0]", "bfloat16", "bfloat16"]


@pytest.mark.numpy_only
def test_a_bfloat16_array_from_outside_is_known_before_ember_loads_ml_dtypes():
    out = _run("import numpy as np, ml_dtypes, ember\n"
               "print(ember.tensor(np.array([0.5], dtype=ml_dtypes.bfloat16)).dtype)")
    assert out == ["bfloat16"]

"""scikit-learn estimators fit and predict on ember tensors with ``array_api_dispatch=True``.

SciPy's array API mode must be switched on before SciPy is first imported, so each check runs
in a fresh interpreter."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("array_api_compat")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

SCRIPT = """
import numpy as np, sklearn, ember
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import StandardScaler
rng = np.random.default_rng(0)
X = rng.standard_normal((80, 5)) + np.repeat(np.arange(4), 20)[:, None] * 0.8
y = np.repeat(np.arange(4), 20)
Xe, ye = ember.tensor(X, dtype="float64"), ember.tensor(y)
with sklearn.config_context(array_api_dispatch=True):
    model = ESTIMATOR.fit(Xe, ye)
    pred = model.predict(Xe)
    extra = model.predict_proba(Xe) if hasattr(model, "predict_proba") else None
    scaled = StandardScaler().fit(Xe).transform(Xe)
ref = ESTIMATOR.fit(X, y)
assert isinstance(pred, ember.Tensor) and isinstance(scaled, ember.Tensor), type(pred)
np.testing.assert_array_equal(pred.numpy(), ref.predict(X))
if extra is not None:
    assert isinstance(extra, ember.Tensor)
    np.testing.assert_allclose(extra.numpy(), ref.predict_proba(X), rtol=1e-6, atol=1e-6)
np.testing.assert_allclose(scaled.numpy(), StandardScaler().fit_transform(X), rtol=1e-6,
                           atol=1e-6)
print("ok", float(np.mean(pred.numpy() == y)))
"""


def _run(estimator):
    env = dict(os.environ, SCIPY_ARRAY_API="1",
               PYTHONPATH=os.path.abspath(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", SCRIPT.replace("ESTIMATOR", estimator)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok")
    return float(proc.stdout.split()[1])


def test_gaussian_naive_bayes_matches_numpy():
    assert _run("GaussianNB()") > 0.5


def test_linear_discriminant_analysis_matches_numpy():
    assert _run("__import__('sklearn.discriminant_analysis').discriminant_analysis."
                "LinearDiscriminantAnalysis()") > 0.5

"""Writes through views, as SciPy and scikit-learn make them on ``ember.array_api`` arrays
(issue 25): ``v = x[0]; v += 1`` changes ``x``, as in PyTorch and NumPy, so
``scipy.signal.oaconvolve``'s overlap-add and ``GaussianMixture``'s covariance regularisation
give NumPy's results.

SciPy's array API mode must be switched on (``SCIPY_ARRAY_API=1``) before SciPy is first
imported, so the consumers run on ember in a fresh interpreter, which prints its results as
JSON; NumPy's results, the oracle, are computed here."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember.array_api as xp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _run(script):
    """Run ``script`` with ember's array API on for SciPy; its printed JSON."""
    env = dict(os.environ, SCIPY_ARRAY_API="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the write patterns, in-process, against PyTorch ---------------------------------------------

def _patterns(lib, asarray, reshape, permute):
    """The writes SciPy's oaconvolve and scikit-learn's GaussianMixture make, on ``lib``."""
    x = asarray(np.arange(24.0).reshape(2, 3, 4))
    v = x[0]
    v += 1                                   # a basic index, then augmented assignment
    ret = permute(x, (2, 1, 0))              # oaconvolve: swapped axes, split, then +=
    tail = ret[-1:, ...]
    head = ret[:1, 1:, ...]
    head += tail[:, :-1, ...]
    cov = x[1, :, :]                         # _add_to_diagonal: covariances[k, :, :]
    for i in range(3):
        cov[i, i] = cov[i, i] + 0.5
    flat = reshape(x, (-1,))                 # a reshape of a contiguous array is a view
    flat[::5] *= 2
    return [x.tolist(), v.tolist(), cov.tolist(), flat.tolist()]


def test_writes_through_views_reach_the_array_as_pytorchs():
    got = _patterns(xp, lambda a: xp.asarray(a), xp.reshape, xp.permute_dims)
    want = _patterns(torch, torch.tensor, torch.reshape, torch.permute)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_an_expanded_view_takes_or_refuses_a_write_as_pytorchs():
    t = torch.tensor([1.0, 2.0]).expand(3, 2)
    row = t[0]
    row += 1  # distinct memory: allowed, and every row shows it
    x = xp.broadcast_to(xp.asarray([1.0, 2.0]), (3, 2))
    row = x[0]
    row += 1
    np.testing.assert_array_equal(np.asarray(x.tolist()), t.numpy())
    with pytest.raises(RuntimeError, match="single memory location"):
        column = t[:, 0]
        column += 1
    with pytest.raises(Exception, match="single memory location") as info:
        column = x[:, 0]
        column += 1
    assert type(info.value).__module__ == "ember.errors"


# -- scipy.signal.oaconvolve ---------------------------------------------------------------------

# (in1 shape, in2 shape, mode, axes): the overlap-add path (one input much longer) and the
# fftconvolve fallback, 1-d to 3-d
CONVOLUTIONS = [((100,), (5,), "full", None), ((100,), (5,), "same", None),
                ((100,), (5,), "valid", None), ((30,), (13,), "full", None),
                ((37,), (11,), "same", None), ((20, 18), (3, 4), "full", None),
                ((20, 18), (3, 4), "same", None), ((20, 18), (3, 4), "valid", None),
                ((16, 11), (3, 6), "same", None), ((40, 6, 3), (4, 3, 3), "full", (0, 1)),
                ((9,), (9,), "full", None)]

OACONVOLVE = """
import json, numpy as np, scipy.signal
import ember.array_api as xp
cases = json.loads(CASES)
out = []
for seed, (s1, s2, mode, axes) in enumerate(cases):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(s1), rng.standard_normal(s2)
    got = scipy.signal.oaconvolve(xp.asarray(a), xp.asarray(b), mode=mode,
                                  axes=None if axes is None else tuple(axes))
    out.append([type(got).__module__ + "." + type(got).__name__, got.dtype.name,
                list(got.shape), got.tolist()])
print(json.dumps(out))
"""


def test_scipy_oaconvolve_on_ember_gives_numpys_result():
    scipy_signal = pytest.importorskip("scipy.signal")
    got = _run(OACONVOLVE.replace("CASES", repr(json.dumps(CONVOLUTIONS))))
    assert len(got) == len(CONVOLUTIONS)
    for seed, ((s1, s2, mode, axes), (kind, dtype, shape, values)) in enumerate(
            zip(CONVOLUTIONS, got)):
        rng = np.random.default_rng(seed)
        a, b = rng.standard_normal(s1), rng.standard_normal(s2)
        want = scipy_signal.oaconvolve(a, b, mode=mode, axes=axes)
        assert kind == "ember._tensor.Tensor" and dtype == "float64"
        assert tuple(shape) == want.shape, (s1, s2, mode)
        np.testing.assert_allclose(np.asarray(values), want, rtol=1e-9, atol=1e-9,
                                   err_msg=f"{s1} * {s2}, {mode}")


# -- scikit-learn's GaussianMixture (full covariances) ------------------------------------------

def _blobs(seed, n_features):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-5, 5, (3, n_features))
    return np.concatenate([rng.standard_normal((40, n_features)) @ rng.uniform(0.3, 1.0, (
        n_features, n_features)) + c for c in centers])


# (data seed, features, init_params, reg_covar, means_init given)
MIXTURES = [(0, 3, "random", 1e-6, False), (1, 2, "random_from_data", 1e-3, False),
            (2, 4, "random", 1e-2, True), (3, 1, "random_from_data", 1e-6, False)]

GAUSSIAN_MIXTURE = """
import json, numpy as np, sklearn
from sklearn.mixture import GaussianMixture
import ember, ember.array_api as xp
X, means_init, kwargs = json.loads(CASE)
X = xp.asarray(np.asarray(X))
if means_init is not None:
    kwargs["means_init"] = xp.asarray(np.asarray(means_init))
with sklearn.config_context(array_api_dispatch=True):
    gm = GaussianMixture(n_components=3, covariance_type="full", random_state=0,
                         **kwargs).fit(X)
    proba = gm.predict_proba(X)
    score = gm.score(X)
out = {name: getattr(gm, name).tolist() for name in
       ("means_", "covariances_", "weights_", "precisions_cholesky_")}
out.update(kinds=[type(getattr(gm, n)).__name__ for n in ("means_", "covariances_", "weights_")],
           proba=proba.tolist(), score=score, n_iter=gm.n_iter_, converged=gm.converged_)
print(json.dumps(out))
"""


@pytest.mark.parametrize("seed, n_features, init, reg, with_means", MIXTURES)
def test_sklearn_gaussian_mixture_full_on_ember_gives_numpys_fit(seed, n_features, init, reg,
                                                                  with_means):
    mixture = pytest.importorskip("sklearn.mixture")
    pytest.importorskip("array_api_compat")
    X = _blobs(seed, n_features)
    kwargs = {"init_params": init, "reg_covar": reg}
    means_init = X[[0, 40, 80]] + 0.1 if with_means else None
    got = _run(GAUSSIAN_MIXTURE.replace("CASE", repr(json.dumps(
        [X.tolist(), None if means_init is None else means_init.tolist(), kwargs]))))
    extra = {} if means_init is None else {"means_init": means_init}
    want = mixture.GaussianMixture(n_components=3, covariance_type="full", random_state=0,
                                   **kwargs, **extra).fit(X)
    assert got["kinds"] == ["Tensor"] * 3
    assert got["n_iter"] == want.n_iter_ and got["converged"] == want.converged_
    for name in ("means_", "covariances_", "weights_", "precisions_cholesky_"):
        np.testing.assert_allclose(np.asarray(got[name]), getattr(want, name), rtol=1e-6,
                                   atol=1e-6, err_msg=name)
    np.testing.assert_allclose(np.asarray(got["proba"]), want.predict_proba(X), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(got["score"], want.score(X), rtol=1e-6)


# -- scikit-learn's own array API test of GaussianMixture, on ember -----------------------------

def test_sklearns_gaussian_mixture_array_api_test_passes_on_ember(tmp_path):
    pytest.importorskip("sklearn.mixture")
    pytest.importorskip("array_api_compat")
    report = tmp_path / "consumers.json"
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", "consumers.py"), "--suite", "sklearn",
         "--namespace", "ember", "-k", "gaussian_mixture_array_api_compliance and full",
         "--timeout", "110", "--json", str(report)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")))
    assert proc.returncode == 0, proc.stderr[-3000:]
    outcomes = json.loads(report.read_text())["sklearn/ember"]["outcomes"]
    # init_params x float64/float32 x with/without the constructor's arrays
    assert len(outcomes) == 8, outcomes
    assert set(outcomes.values()) == {"passed"}, outcomes

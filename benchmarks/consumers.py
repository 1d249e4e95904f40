"""Run scikit-learn's and SciPy's own Array API tests on ``ember.array_api``, next to
array-api-strict, and print the pass/fail counts of each namespace.

    python benchmarks/consumers.py                      # both suites, both namespaces
    python benchmarks/consumers.py --suite scipy --namespace ember -k cubature

The tests are the ones shipped in the installed wheels (``sklearn/**/tests``,
``scipy/{special,fft,integrate,cluster}/tests``). A pytest plugin, written to a temporary folder,
puts the namespace under test in place of the suites' own lists, with ``SCIPY_ARRAY_API=1``:

- scikit-learn: ``sklearn.utils._array_api.yield_namespaces`` and
  ``yield_namespace_device_dtype_combinations`` yield only the namespace (ember:
  ``("ember.array_api", "cpu", "float64")`` and ``(..., "float32")``; array-api-strict: its own
  two combinations). Only the test files that use them are run, and of those only the tests whose
  id names the namespace.
- SciPy: the ``xp`` fixture of ``scipy/conftest.py`` is parametrized by the namespace alone.
  ember counts as a backend of its own: the tests marked ``np_only`` are skipped on it, as on
  every non-NumPy backend; the ``cpu_only`` and ``eager_only`` marks do not apply (ember is eager
  and on the CPU); marks that name another backend do not apply.

array-api-strict is installed with pip into ``~/.cache/ember-consumers`` (``--deps``) when it is
missing; nothing else is installed. Each run of pytest is bounded by ``--timeout`` seconds. The
counts and the tests that fail on ember but not on array-api-strict are printed at the end
(``--json`` writes them).
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPS = os.path.join(os.path.expanduser("~"), ".cache", "ember-consumers")
NAMESPACES = {"ember": "ember.array_api", "array_api_strict": "array_api_strict"}
SCIPY_MODULES = ("special", "fft", "integrate", "cluster")

PLUGIN = r'''
"""Puts one Array API namespace in place of scikit-learn's and SciPy's lists (consumers.py)."""
import json
import os
import sys

import pytest

NS = os.environ["EMBER_CONSUMERS_NS"]          # "ember" or "array_api_strict"
SUITE = os.environ["EMBER_CONSUMERS_SUITE"]    # "sklearn" or "scipy"
REPORT = os.environ["EMBER_CONSUMERS_REPORT"]
MODULE = {"ember": "ember.array_api", "array_api_strict": "array_api_strict"}[NS]


def _sklearn():
    import sklearn.utils._array_api as aa
    originals = (aa.yield_namespaces, aa.yield_namespace_device_dtype_combinations)

    def yield_namespaces(include_numpy_namespaces=True):
        yield MODULE

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        if NS == "ember":
            yield MODULE, "cpu", "float64"
            yield MODULE, "cpu", "float32"
        else:
            for combo in originals[1](include_numpy_namespaces=False):
                if combo[0] == MODULE:
                    yield combo

    new = [(originals[0], yield_namespaces),
           (originals[1], yield_namespace_device_dtype_combinations)]
    import sklearn.utils.estimator_checks  # noqa: F401  (binds the names at import)
    for name, module in list(sys.modules.items()):
        if name == "sklearn" or name.startswith("sklearn."):
            for attr, value in list(vars(module).items()):
                for old, replacement in new:
                    if value is old:
                        setattr(module, attr, replacement)


def _scipy():
    import scipy.conftest as sc   # pytest finds this module already imported and uses it
    import importlib
    mod = importlib.import_module(MODULE)

    def np_only(request, kind):
        for marker in request.node.iter_markers(f"{kind}_xp_backends"):
            if marker.kwargs.get("np_only", False):
                return marker.kwargs.get("reason") or "do not run with non-NumPy backends"
        return None

    @pytest.fixture(params=[pytest.param(mod, id=NS, marks=pytest.mark.array_api_backends)])
    def xp(request):
        if NS == "ember":
            for kind in ("skip", "xfail"):
                reason = np_only(request, kind)
                if reason:
                    getattr(pytest, kind)(reason=reason)
        else:
            sc.skip_or_xfail_xp_backends(request, "skip")
            sc.skip_or_xfail_xp_backends(request, "xfail")
        ns = sc.array_namespace(request.param.empty(0))
        with sc.patch_lazy_xp_functions(request=request, xp=request.param):
            with sc.default_xp(ns):
                yield ns

    sc.xp = xp


if os.environ.get("EMBER_CONSUMERS_FLOAT64"):
    # what SciPy's conftest does to PyTorch, whose default float is float32 as ember's:
    # torch.set_default_dtype(torch.float64)
    import ember.torch
    ember.torch.set_default_dtype(ember.torch.float64)

if SUITE == "sklearn":
    _sklearn()
else:
    _scipy()

_outcomes = {}
_messages = {}


def pytest_runtest_logreport(report):
    node = report.nodeid
    if report.when != "call" and not (report.failed or report.skipped):
        return
    if hasattr(report, "wasxfail"):
        outcome = "xpassed" if report.passed else "xfailed"
    elif report.failed:
        outcome = "failed" if report.when == "call" else "error"
    else:
        outcome = "skipped" if report.skipped else "passed"
    if _outcomes.get(node) not in ("failed", "error"):
        _outcomes[node] = outcome
        if report.failed:
            _messages[node] = (report.longreprtext or "").strip().splitlines()[-1:] or [""]


def pytest_sessionfinish(session):
    import ember
    with open(REPORT, "w") as f:
        json.dump({"outcomes": _outcomes, "messages": {k: v[0] for k, v in _messages.items()},
                   "ember": os.path.dirname(ember.__file__)}, f)
'''


def _site_packages():
    import sklearn
    return os.path.dirname(os.path.dirname(sklearn.__file__))


def ensure_strict(deps):
    """Make array-api-strict importable: installed already, or pip-installed into ``deps``."""
    if _importable("array_api_strict", []):
        return []
    if not _importable("array_api_strict", [deps]):
        print(f"installing array-api-strict into {deps} (pip --target)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", deps,
                        "array-api-strict>=2.3"], check=True)
    return [deps]


def _importable(name, paths):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", f"import {name}"], env=env,
                          capture_output=True).returncode == 0


def sklearn_files(site):
    out = []
    for path in sorted(glob.glob(os.path.join(site, "sklearn", "**", "tests", "test_*.py"),
                                 recursive=True)):
        with open(path) as f:
            text = f.read()
        if re.search(r"yield_namespace_device_dtype_combinations|yield_namespaces|"
                     r"_array_api_for_tests", text):
            out.append(path)
    return out


def run(suite, ns, args, extra_paths, plugin_dir):
    """One pytest run of ``suite`` on namespace ``ns``; the outcomes per test id."""
    site = _site_packages()
    report = os.path.join(plugin_dir, f"report-{suite}-{ns}.json")
    if suite == "sklearn":
        targets = sklearn_files(site)
        select = NAMESPACES[ns]
    else:
        targets = [os.path.join(site, "scipy", m, "tests") for m in SCIPY_MODULES]
        select = None
    keyword = " and ".join(f"({k})" for k in (select, args.k) if k)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
           "-p", "no:randomly", "-p", "ember_consumers_plugin", "--rootdir", site,
           "-o", "addopts=", "--no-header", "-rN", "--tb=line", "-W", "ignore"]
    if suite == "scipy":
        cmd += ["-m", "array_api_backends"]
    if keyword:
        cmd += ["-k", keyword]
    cmd += targets
    env = dict(os.environ, SCIPY_ARRAY_API="1", EMBER_CONSUMERS_NS=ns,
               EMBER_CONSUMERS_FLOAT64="" if args.float32 or suite != "scipy" else "1",
               EMBER_CONSUMERS_SUITE=suite, EMBER_CONSUMERS_REPORT=report,
               PYTHONPATH=os.pathsep.join([plugin_dir, ROOT] + extra_paths +
                                          [os.environ.get("PYTHONPATH", "")]))
    start = time.time()
    try:
        proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True,
                              timeout=args.timeout)
        tail = (proc.stdout[-400:] + proc.stderr[-1500:]).strip()
    except subprocess.TimeoutExpired:
        tail = f"timed out after {args.timeout} s"
    took = time.time() - start
    if not os.path.exists(report):
        print(f"{suite} on {ns}: no report ({tail})")
        return None
    with open(report) as f:
        data = json.load(f)
    data["seconds"] = round(took)
    return data


def counts(outcomes):
    out = {}
    for v in outcomes.values():
        out[v] = out.get(v, 0) + 1
    return out


def _key(nodeid, ns):
    """The test id with the namespace's part of the parametrization taken out, so that ember's
    and array-api-strict's runs of one test compare."""
    name = NAMESPACES[ns]
    for part in (f"{name}-cpu-float64", f"{name}-cpu-float32", f"{name}-CPU_DEVICE-float64",
                 f"{name}-device1-float32", name, ns):
        nodeid = nodeid.replace(part, "<xp>")
    return nodeid


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=("sklearn", "scipy"), action="append")
    parser.add_argument("--namespace", choices=tuple(NAMESPACES), action="append")
    parser.add_argument("-k", help="pytest -k expression to narrow the tests")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per pytest run")
    parser.add_argument("--deps", default=DEPS, help="where to pip-install array-api-strict")
    parser.add_argument("--json", help="write the outcomes here")
    parser.add_argument("--float32", action="store_true",
                        help="run SciPy's tests with ember's own default float, float32 (by "
                             "default they run with float64, as SciPy's conftest sets "
                             "PyTorch's)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every failure on ember with its last line")
    args = parser.parse_args()
    suites = args.suite or ["scipy", "sklearn"]
    spaces = args.namespace or list(NAMESPACES)
    extra = ensure_strict(args.deps) if "array_api_strict" in spaces else []
    results = {}
    with tempfile.TemporaryDirectory() as plugin_dir:
        with open(os.path.join(plugin_dir, "ember_consumers_plugin.py"), "w") as f:
            f.write(textwrap.dedent(PLUGIN))
        for suite in suites:
            for ns in spaces:
                data = run(suite, ns, args, extra, plugin_dir)
                if data is None:
                    continue
                results[(suite, ns)] = data
                c = counts(data["outcomes"])
                print(f"{suite:8s} {ns:17s} " + "  ".join(
                    f"{k} {c.get(k, 0)}" for k in ("passed", "failed", "error", "skipped",
                                                    "xfailed", "xpassed"))
                      + f"  ({data['seconds']} s)", flush=True)
    for suite in suites:
        if (suite, "ember") not in results:
            continue
        ember = results[(suite, "ember")]
        strict = results.get((suite, "array_api_strict"), {"outcomes": {}})
        bad = {_key(k, "array_api_strict") for k, v in strict["outcomes"].items()
               if v in ("failed", "error")}
        only = sorted(k for k, v in ember["outcomes"].items()
                      if v in ("failed", "error") and _key(k, "ember") not in bad)
        if only or args.verbose:
            print(f"\n{suite}: failing on ember" + ("" if args.verbose else
                                                    ", not on array-api-strict") +
                  f" ({len(only)}):")
            shown = sorted(k for k, v in ember["outcomes"].items()
                           if v in ("failed", "error")) if args.verbose else only
            for k in shown:
                print(f"  {k}\n      {ember['messages'].get(k, '')[:300]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{s}/{n}": d for (s, n), d in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()

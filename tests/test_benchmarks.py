"""Smoke test of the benchmark harness (benchmarks/run.py): a --quick run writes a table with
every case, the scaling table and the chart; the case filter, the merging of rounds and the
fingerprint check work. Measures nothing: the sizes are tiny and there is one repetition."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")
sys.path.insert(0, BENCH)

import cases  # noqa: E402
import helpers  # noqa: E402
import run  # noqa: E402


def _run(*args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, os.path.join(BENCH, "run.py"), *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "perf.md"
    proc = _run("--quick", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out, out.read_text()


def _table_rows(text):
    """``{case: [cells]}`` of the results table."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\| `([A-Za-z0-9_]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def test_quick_run_writes_every_case(quick_report):
    path, text = quick_report
    rows = _table_rows(text)
    assert [c.name for c in cases.CASES] == list(rows)
    for case in cases.CASES:
        what, e, n, t, r_n, r_t, et, r_et, agree = rows[case.name]
        assert re.fullmatch(r"[\d.]+ (s|ms|µs|ns)( ~)?", e), (case.name, e)
        for lib, cell in (("numpy", n), ("torch", t), ("ember", et)):
            if lib in case.setups:
                assert re.fullmatch(r"[\d.]+ (s|ms|µs|ns)( ~)?", cell), (case.name, lib, cell)
            else:
                assert cell == "—"
        assert agree == "yes", case.name  # the libraries computed the same thing
    assert "## Errors" not in text


def test_quick_run_writes_targets_scaling_machine_and_chart(quick_report):
    path, text = quick_report
    assert "## Targets" in text and "## Scaling" in text and "## Machine and settings" in text
    for n in cases.QUICK_SCALING_SIZES:
        assert re.search(rf"^\| {n:,} \|", text, re.M), n
    assert "CPU:" in text and "nproc" in text and "load average" in text
    assert "Threads: 1 per library" in text and "OPENBLAS_CORETYPE" in text
    assert run.MARKER in text
    png = path.with_suffix(".png")
    pytest.importorskip("matplotlib")
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert f"]({png.name})" in text


def test_intro_above_the_marker_is_kept(tmp_path):
    out = tmp_path / "perf.md"
    out.write_text("# My intro\n\nhand-written words\n\n" + run.MARKER + "\nold numbers\n")
    proc = _run("--quick", "--cases", "add_8", "--out", str(out), "--chart", "none")
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("# My intro\n\nhand-written words\n")
    assert "old numbers" not in text
    assert list(_table_rows(text)) == ["add_8"]
    assert not (tmp_path / "perf.png").exists()


def test_case_filter():
    names = [c.name for c in run.select_cases("add_*,training", quick=True)]
    assert names == ["add_8", "add_8_tracked", "add_4M", "mlp_step", "cnn_step"]
    assert all(c.group == "scaling" for c in run.select_cases("scaling", quick=True))
    with pytest.raises(SystemExit, match="no case matches nope"):
        run.select_cases("nope", quick=True)


def test_merge_rounds_keeps_the_faster_round():
    a = {"lib": "ember", "results": {"x": {"median": 2.0}, "y": {"median": 1.0}}}
    b = {"lib": "ember", "results": {"x": {"median": 1.0}, "y": {"median": 3.0},
                                     "z": {"error": "boom"}}}
    merged = run.merge_rounds(run.merge_rounds(None, a), b)
    assert merged["results"]["x"]["median"] == 1.0
    assert merged["results"]["y"]["median"] == 1.0
    assert merged["results"]["x"]["rounds"] == 2
    assert "error" in merged["results"]["z"]


def test_fingerprints_agree():
    fp = {"shape": [2], "sum": 1.0, "sumsq": 5.0}
    assert helpers.fingerprints_agree(fp, dict(fp, sum=1.0 + 1e-7))
    assert not helpers.fingerprints_agree(fp, dict(fp, sum=1.5))
    assert not helpers.fingerprints_agree(fp, dict(fp, shape=[1, 2]))


def test_measure_and_format():
    stats = helpers.measure(lambda: sum(range(10)), reps=3, min_time=0.001)
    assert stats["reps"] == 3 and stats["number"] >= 1
    assert 0 < stats["min"] <= stats["median"] <= stats["max"]
    assert helpers.fmt_time(1.234e-6) == "1.23 µs"
    assert helpers.fmt_time(0.0456) == "45.6 ms"
    assert helpers.fmt_ratio(None) == "—" and helpers.fmt_ratio(1.5) == "1.50×"

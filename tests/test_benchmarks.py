"""Smoke test of the benchmark harness (benchmarks/run.py): a --quick run writes a table with
every case at one thread and at the default threads, the page faults of the training steps,
the targets, the scaling table and the chart; the case filter, the thread settings, the merging
of rounds, the timing of a difference and the fingerprint check work. Measures nothing: the
sizes are tiny and there is one repetition."""

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


TIME = r"−?[\d.]+ (s|ms|µs|ns)( ~)?"  # a backward case's difference may come out below 0


def _tables(text, section):
    """``{case: {column: cell}}`` of the first table after the ``section`` heading."""
    lines = text.split(section, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| case |"))
    head = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(head), line
        rows[cells[0].strip("`")] = dict(zip(head, cells))
    return rows


def _table_rows(text):
    return _tables(text, "## Results")


def test_quick_run_writes_every_case_at_both_thread_settings(quick_report):
    path, text = quick_report
    rows = _table_rows(text)
    assert [c.name for c in cases.CASES] == list(rows)
    for case in cases.CASES:
        row = rows[case.name]
        for setting in ("1 thread", "default threads"):
            for lib, title in (("ember", "ember"), ("numpy", "NumPy"), ("torch", "PyTorch")):
                cell = row[f"{title}, {setting}"]
                if lib in case.setups:
                    assert re.fullmatch(TIME, cell), (case.name, title, setting, cell)
                else:
                    assert cell == "—", (case.name, title, setting, cell)
            times = (row[f"ember, {setting}"], row[f"PyTorch, {setting}"])
            if "torch" in case.setups and not any(c.startswith("−") for c in times):
                # (a backward case's tiny --quick difference can come out below 0: no ratio)
                assert re.fullmatch(r"[\d.]+×", row[f"ember / PyTorch, {setting}"]), case.name
        assert re.fullmatch(TIME, row["ember on torch:cpu, 1 thread"]), case.name
        assert row["agree"] == "yes", case.name  # every library and setting computed the same
    assert "## Errors" not in text


def test_quick_run_writes_the_page_faults_of_the_training_steps(quick_report):
    path, text = quick_report
    rows = _tables(text, "## Page faults")
    training = [c for c in cases.CASES if c.group == "training"]
    assert list(rows) == [c.name for c in training]
    assert {"gpt_step", "gpt_forward", "mlp_step", "cnn_step"} <= set(rows)
    for case in training:
        for setting in ("1 thread", "default threads"):
            for title in ("ember", "PyTorch"):
                assert re.fullmatch(r"[\d,.]+", rows[case.name][f"{title}, {setting}"]), case.name


def test_quick_run_writes_the_threads_targets(quick_report):
    path, text = quick_report
    targets = text.split("## Targets", 1)[1].split("\n## ", 1)[0]
    for name in run.DEFAULT_THREADS_CASES:
        assert f"Threads issue, {name}: ember ≤ PyTorch (default threads)" in targets, name
    for name in run.ONE_THREAD_CASES:
        assert f"Threads issue, {name}: ember ≤ PyTorch (1 thread)" in targets, name
    for setting in ("1 thread", "default threads"):
        assert (f"Threads issue, gpt_step: minor page faults per call ≤ 2.0× PyTorch's "
                f"({setting})") in targets


def test_quick_run_writes_targets_scaling_machine_and_chart(quick_report):
    path, text = quick_report
    assert "## Targets" in text and "## Scaling" in text and "## Machine and settings" in text
    for n in cases.QUICK_SCALING_SIZES:
        assert re.search(rf"^\| {n:,} \|", text, re.M), n
    assert "CPU:" in text and "nproc" in text and "load average" in text
    assert "Threads, 1 thread per library" in text and "Threads, default" in text
    assert "OPENBLAS_CORETYPE" in text
    assert "default threads, PyTorch process: " in text and "torch.get_num_threads() = " in text
    assert run.MARKER in text
    png = path.with_suffix(".png")
    pytest.importorskip("matplotlib")
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert f"]({png.name})" in text


def test_intro_above_the_marker_is_kept(tmp_path):
    out = tmp_path / "perf.md"
    out.write_text("# My intro\n\nhand-written words\n\n" + run.MARKER + "\nold numbers\n")
    proc = _run("--quick", "--cases", "add_8", "--threads", "2", "--out", str(out),
                "--chart", "none")
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("# My intro\n\nhand-written words\n")
    assert "old numbers" not in text
    rows = _table_rows(text)
    assert list(rows) == ["add_8"]
    # one thread setting: its columns only
    assert re.fullmatch(TIME, rows["add_8"]["ember, 2 threads"])
    assert not any("default" in column or "1 thread" in column for column in rows["add_8"])
    assert "Threads, 2 threads per library" in text and "OMP_NUM_THREADS=2" in text
    assert not (tmp_path / "perf.png").exists()


def test_thread_settings():
    assert run.parse_threads("1,default") == [1, "default"]
    assert run.parse_threads("default, 4, default") == ["default", 4]
    assert [run.threads_label(s) for s in (1, 4, "default")] == [
        "1 thread", "4 threads", "default threads"]
    for bad in ("0", "two", "", "1,-2"):
        with pytest.raises(ValueError):
            run.parse_threads(bad)
    env, _ = helpers.worker_env(3, ROOT)
    assert all(env[v] == "3" for v in helpers.THREAD_VARS)
    os.environ["OMP_NUM_THREADS"], before = "5", os.environ.get("OMP_NUM_THREADS")
    try:
        env, _ = helpers.worker_env("default", ROOT)
    finally:
        if before is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = before
    assert not any(v in env for v in helpers.THREAD_VARS)


def test_case_filter():
    names = [c.name for c in run.select_cases("add_*,training", quick=True)]
    assert names == ["add_8", "add_8_tracked", "add_4M", "mlp_step", "cnn_step", "gpt_step",
                     "gpt_forward"]
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
    assert stats["faults"] is not None and stats["faults"] >= 0
    assert helpers.fmt_time(1.234e-6) == "1.23 µs"
    assert helpers.fmt_time(0.0456) == "45.6 ms"
    assert helpers.fmt_time(-2.5e-3) == "−2.50 ms"
    assert helpers.fmt_ratio(None) == "—" and helpers.fmt_ratio(1.5) == "1.50×"
    assert helpers.fmt_ratio(float("inf")) == "∞"


def test_page_fault_ratio_where_pytorch_had_none():
    def payloads(ember, torch):
        return {"ember": {"results": {"gpt_step": {"median": 1.0, "faults": ember}}},
                "torch": {"results": {"gpt_step": {"median": 1.0, "faults": torch}}}}

    assert run._faults_ratio(payloads(3.0, 2.0), "gpt_step") == 1.5
    assert run._faults_ratio(payloads(0.0, 0.0), "gpt_step") == 0.0
    assert run._faults_ratio(payloads(2.3, 0.0), "gpt_step") == float("inf")
    rows = run.targets({1: payloads(2.3, 0.0)}, [])
    assert rows[-1] == ("Threads issue, gpt_step: minor page faults per call ≤ 2.0× PyTorch's "
                        "(1 thread)", "∞ (2.3 vs 0.0)", False)


def test_measure_counts_the_page_faults_of_fresh_memory():
    import numpy as np

    # 64 MB of fresh memory per call: above glibc's largest mmap threshold (32 MB, which it
    # rises to after a large free, and below which it reuses freed memory), so the OS maps it anew
    # (at least 16 faults even where it uses 2 MB huge pages); a sum of a kept array maps none.
    # Measured on a new thread: NumPy's allocator there is its own, not ember's buffer pool
    # (installed on the importing thread), which would reuse the block.
    import threading
    found = {}
    worker = threading.Thread(target=lambda: found.update(
        helpers.measure(lambda: np.ones(2**24, np.float32), reps=2, min_time=0)))
    worker.start()
    worker.join()
    fresh = found
    x = np.ones(2**23, np.float32)
    kept = helpers.measure(lambda: x.sum(), reps=2, min_time=0)
    assert fresh["faults"] >= 16 and kept["faults"] < 2


def test_measure_difference_times_the_work_beyond_the_baseline(monkeypatch):
    # a clock that the two functions advance: fn takes 4 ms, the baseline 1 ms
    now = [0.0]

    class Clock:
        @staticmethod
        def perf_counter():
            return now[0]

    def advance(seconds):
        now[0] += seconds

    monkeypatch.setattr(helpers, "time", Clock)
    stats = helpers.measure_difference(lambda: advance(0.004), lambda: advance(0.001),
                                       reps=3, min_time=0.01)
    assert stats["number"] == 5  # the calls per repetition are calibrated on fn: 5 x 4 ms
    assert stats["total"] == pytest.approx(0.004) and stats["baseline"] == pytest.approx(0.001)
    for key in ("median", "min", "max"):
        assert stats[key] == pytest.approx(0.003)


def test_against_runs_the_other_tree_in_the_same_run(tmp_path):
    out = tmp_path / "perf.md"
    proc = _run("--quick", "--cases", "add_8,cat_100", "--threads", "1", "--against", ROOT,
                "--out", str(out), "--chart", "none")
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    section = text.split("## Against another tree", 1)[1]
    assert f"ember from `{ROOT}`" in section
    for title in ("### ember (NumPy), 1 thread", "### ember on torch:cpu, 1 thread"):
        rows = _tables(section, title)
        assert set(rows) == {"add_8", "cat_100"}
        for row in rows.values():
            assert re.fullmatch(TIME, row["that tree"]) and re.fullmatch(TIME, row["this tree"])
            assert re.fullmatch(r"[\d.]+×", row["ratio"])


def test_against_counts_the_cases_within_the_ratio():
    import against

    class C:
        def __init__(self, name):
            self.name = name

    def results(times):
        return {"results": {n: {"median": t} for n, t in times.items()}}

    by_setting = {1: {"ember": results({"a": 1.04, "b": 2.0, "c": 1.0}),
                      "ember@against": results({"a": 1.0, "b": 1.0})}}
    lines = against.table([C("a"), C("b"), C("c")], by_setting, "/old", run.threads_label)
    text = "\n".join(lines)
    assert "### ember (NumPy), 1 thread: 1 of 2 within 1.05x" in text
    assert "| `a` | 1.00 s | 1.04 s | 1.04× |" in text and "| `b` | 1.00 s | 2.00 s | 2.00× |" in text
    assert "`c`" not in text and "torch:cpu" not in text


def test_against_a_directory_without_ember_is_refused(tmp_path):
    proc = _run("--quick", "--cases", "add_8", "--against", str(tmp_path), "--out",
                str(tmp_path / "p.md"), "--chart", "none")
    assert proc.returncode != 0
    assert f"--against '{tmp_path}': expected a source tree of ember" in proc.stderr

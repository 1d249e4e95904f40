"""The Dask device on a memory-limited local cluster (127.0.0.1, two 512 MiB workers): a
reduction and a matrix product over a 2.25 GB array, more than twice the memory the workers
may use, complete with the right values. The cluster runs in a fresh process
(tests/backends/dask_larger_than_memory.py), bounded in time."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("dask.distributed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.once
def test_sum_and_gram_of_an_array_twice_the_workers_memory():
    script = os.path.join(ROOT, "tests", "backends", "dask_larger_than_memory.py")
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    rows, cols = out["rows"], out["cols"]
    assert out["bytes"] > 2 * out["worker_bytes"]
    assert out["device"] == "xp:dask"
    assert out["sum"] == rows * cols * (cols - 1) / 2
    assert out["gram_shape"] == [cols, cols]
    assert out["gram_3_5"] == rows * 15.0
    assert out["gram_last_2"] == rows * 2.0 * (cols - 1)

"""The distributed main job: `python -m ember train --nproc 2` starts 2 ranks on 127.0.0.1,
rank 0 prints and writes the files; and the --nproc flag's errors."""

import io
import os
import signal
import subprocess
import sys

import pytest

import ember.io
from ember.__main__ import main
from ember.train import train

from dist_harness import ROOT, TIMEOUT


def test_train_nproc_2_writes_once_and_learns_like_one_process(tmp_path):
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    proc = subprocess.Popen([sys.executable, "-m", "ember", "train", "--nproc", "2", "--epochs",
                             "1", "--seed", "1", "--out", str(out)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:  # the launcher and the ranks it started: one process group
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, stderr
    lines = stdout.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("wrote "), stdout  # rank 0 only
    accuracy = float(lines[1].removeprefix("test accuracy: "))
    assert sorted(os.listdir(out)) == ["digits.png", "digits.safetensors"]
    meta = ember.io.load_metadata(out / "digits.safetensors")
    assert meta["world_size"] == "2" and meta["batch_size"] == "32"
    single = train(epochs=1, seed=1, out=str(tmp_path / "single"), progress=False,
                   log=io.StringIO())
    # the same global batches; BatchNorm normalizes each rank's half, so close, not equal
    assert accuracy > 0.8 and abs(accuracy - single["test_accuracy"]) < 0.06


@pytest.mark.parametrize("args,needle", [
    (["--nproc", "0"], "argument --nproc: invalid value '0': expected an int >= 1"),
    (["--nproc", "3", "--batch-size", "2"], "--batch-size 2 is smaller than --nproc 3"),
])
def test_nproc_errors_are_one_line_and_exit_2(capsys, args, needle):
    with pytest.raises(SystemExit) as info:
        main(["train", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err


def test_nproc_inside_a_distributed_run_is_refused(capsys, monkeypatch):
    monkeypatch.setenv("RANK", "0")
    with pytest.raises(SystemExit) as info:
        main(["train", "--nproc", "2"])
    assert info.value.code == 2
    assert "--nproc is given inside a distributed run" in capsys.readouterr().err

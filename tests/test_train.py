"""Tests of the main job (python -m ember train / predict), its flags and errors, and of
docs/training.md."""

import doctest
import os
import re
import subprocess
import sys

import pytest

import ember.io
from ember.__main__ import main
from oracle import engine_devices

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCURACY = re.compile(r"^test accuracy: (0\.\d{4}|1\.0000)$")


def _run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ember", *args], cwd=cwd or ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def _one_line_error(err, *needles):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_train_two_epochs_then_predict(tmp_path):
    out = tmp_path / "run"
    res = _run("train", "--epochs", "2", "--seed", "1", "--out", str(out), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    m = ACCURACY.match(last)
    assert m, res.stdout
    assert float(m.group(1)) > 0.85  # two epochs already learn most digits
    assert "epoch 1/2" in res.stderr and "epoch 2/2" in res.stderr  # the progress bars
    assert "loss=" in res.stderr and "acc=" in res.stderr
    model, plot = out / "digits.safetensors", out / "digits.png"
    assert model.is_file() and plot.is_file()
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(os.listdir(out)) == ["digits.png", "digits.safetensors"]
    assert not (tmp_path / "digits.safetensors").exists()
    state = ember.io.load_file(model)
    assert state["0.weight"].shape == (16, 1, 3, 3) and state["9.weight"].shape == (10, 128)
    meta = ember.io.load_metadata(model)
    assert meta["epochs"] == "2" and meta["seed"] == "1" and "test_accuracy: " + \
        meta["test_accuracy"] == last.replace("test accuracy: ", "test_accuracy: ")
    pred = _run("predict", str(model), cwd=tmp_path)
    assert pred.returncode == 0, pred.stderr
    assert pred.stdout.strip().splitlines()[-1] == last


@pytest.mark.parametrize("args,needles", [
    (["train", "--epochs", "-1"], ["argument --epochs", "'-1'", "expected an int >= 1"]),
    (["train", "--epochs", "0"], ["argument --epochs", "expected an int >= 1"]),
    (["train", "--epochs", "2.5"], ["argument --epochs", "'2.5'"]),
    (["train", "--lr", "abc"], ["argument --lr", "'abc'", "expected a number > 0"]),
    (["train", "--lr", "-0.1"], ["argument --lr", "expected a number > 0"]),
    (["train", "--lr", "nan"], ["argument --lr", "'nan'"]),
    (["train", "--batch-size", "0"], ["argument --batch-size", "expected an int >= 1"]),
    (["train", "--seed", "-3"], ["argument --seed", "expected an int >= 0"]),
    (["train", "--epochs"], ["argument --epochs", "expected one argument"]),
    (["train", "--bogus", "1"], ["unrecognized arguments: --bogus 1"]),
    (["fly"], ["invalid choice: 'fly'"]),
    ([], ["required: {train,predict,tour}"]),
    (["predict"], ["required: FILE"]),
])
def test_bad_flags_print_one_line_and_exit_2(capsys, args, needles):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    _one_line_error(captured.err, "python -m ember", "error:", *needles)


def test_bad_flag_from_the_shell_has_no_traceback():
    res = _run("train", "--epochs", "-1")
    assert res.returncode == 2
    assert res.stdout == ""
    _one_line_error(res.stderr, "python -m ember train: error: argument --epochs")


def test_out_that_is_a_file(tmp_path, capsys):
    target = tmp_path / "afile"
    target.write_text("x")
    with pytest.raises(SystemExit) as info:
        main(["train", "--out", str(target)])
    assert info.value.code == 2
    _one_line_error(capsys.readouterr().err, "--out", "is a file; expected a folder")
    assert target.read_text() == "x"


def test_predict_missing_and_bad_files(tmp_path, capsys):
    assert main(["predict", str(tmp_path / "nope.safetensors")]) == 2
    _one_line_error(capsys.readouterr().err, "python -m ember predict: error:", "nope.safetensors")
    bad = tmp_path / "bad.safetensors"
    for content in (b"", b"this is not a safetensors file", b"\x89PNG\r\n\x1a\n" + bytes(32)):
        bad.write_bytes(content)
        assert main(["predict", str(bad)]) == 2
        _one_line_error(capsys.readouterr().err, "predict: error:", "bad.safetensors",
                        "not a readable safetensors file")
    other = tmp_path / "other.safetensors"
    ember.io.save_file({"weight": ember.ones(2, 2)}, other)
    assert main(["predict", str(other)]) == 2
    _one_line_error(capsys.readouterr().err, "predict: error:", "missing keys")
    assert main(["predict", str(tmp_path)]) == 2
    _one_line_error(capsys.readouterr().err, "predict: error:", "is a folder")


def test_bad_devices_print_one_line_and_exit_2(tmp_path, capsys):
    assert main(["train", "--device", "tpu", "--out", str(tmp_path / "a")]) == 2
    _one_line_error(capsys.readouterr().err, "python -m ember train: error:", "'tpu'",
                    "not a device name")
    if "torch:cuda:7" not in ember.devices():
        assert main(["predict", str(tmp_path / "x.safetensors"), "--device", "cuda:7"]) == 2
        _one_line_error(capsys.readouterr().err, "python -m ember predict: error:",
                        "torch:cuda:7", "not available")
    assert not (tmp_path / "a").exists()


def _model_runs_on(device):
    from ember.train import build_model
    try:
        model = build_model().to_device(device)
        return model(ember.zeros(2, 1, 8, 8, device=device)).device == device
    except Exception:  # noqa: BLE001 - a backend that cannot run the model yet
        return False


@pytest.mark.parametrize("device", [str(d) for d in engine_devices() if str(d) != "cpu"])
def test_train_and_predict_on_another_device(tmp_path, device):
    if not _model_runs_on(device):
        pytest.skip(f"the digits model does not run on {device} yet")
    out = tmp_path / "run"
    res = _run("train", "--epochs", "2", "--seed", "1", "--out", str(out), "--device", device,
               cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    last = res.stdout.strip().splitlines()[-1]
    m = ACCURACY.match(last)
    assert m, res.stdout
    assert float(m.group(1)) > 0.85
    model = out / "digits.safetensors"
    assert ember.io.load_metadata(model)["device"] == device
    assert ember.io.load_file(model)["0.weight"].shape == (16, 1, 3, 3)
    for where in (device, "cpu"):  # the weights load and predict on any device
        pred = _run("predict", str(model), "--device", where, cwd=tmp_path)
        assert pred.returncode == 0, pred.stderr
        got = float(pred.stdout.strip().splitlines()[-1].split()[-1])
        assert abs(got - float(m.group(1))) <= 2 / 360  # float rounding may move an image


def test_help_lists_the_flags(capsys):
    with pytest.raises(SystemExit) as info:
        main(["train", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--epochs", "--lr", "--batch-size", "--seed", "--out", "--device"):
        assert flag in text
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "train" in text and "predict" in text and "tour" in text


def test_tour_is_still_there(capsys):
    assert main(["tour"]) == 0
    assert "reshape" in capsys.readouterr().out


def test_dev_py_runs_train_by_default_with_the_extras():
    text = open(os.path.join(ROOT, "dev.py")).read()
    assert '*(rest or ["train"])' in text
    for extra in ("scikit-learn", "tqdm", "matplotlib", "safetensors"):
        assert extra in text


def test_docs_training_md_examples_run():
    path = os.path.join(ROOT, "docs", "training.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0

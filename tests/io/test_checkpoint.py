"""ember.save / ember.load: checkpoints of training state (safetensors tensors + a JSON
structure), exact round trips, resuming a run in a fresh process bit for bit, and bad input."""

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import safetensors.numpy
import torch

import ember
from ember import InvalidParameterError, nn, optim
from oracle import SHAPES, assert_unchanged, layouts, on_device, random_array, snapshot

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "uint16", "uint32", "uint64", "bool"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _same_tensor(a, b):
    assert isinstance(b, ember.Tensor)
    assert a.dtype is b.dtype and a.shape == b.shape
    assert np.asarray(a.numpy()).tobytes() == np.asarray(b.numpy()).tobytes()


def _same(a, b):
    """``b`` is ``a`` loaded back: the same types (tuple vs list, int vs float vs bool), keys in
    the same order, and tensors with the same dtype, shape and bytes."""
    assert type(b) is (dict if isinstance(a, dict) else type(a)) or isinstance(a, ember.Tensor)
    if isinstance(a, ember.Tensor):
        _same_tensor(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b))


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "ckpt.safetensors")


def test_every_dtype_and_shape_round_trips(path):
    rng = np.random.default_rng(0)
    obj = {}
    for dtype in on_device(DTYPES):
        for shape in SHAPES:
            for name, arr in layouts(random_array(rng, shape, dtype)):
                t = ember.from_numpy(arr)
                t = t.cast(dtype) if dtype == "bfloat16" else t
                obj[f"{dtype}/{shape}/{name}"] = t
    before = snapshot(*obj.values())
    ember.save(obj, path)
    assert_unchanged(list(obj.values()), before)
    back = ember.load(path)
    _same(obj, back)


def test_python_values_round_trip_with_their_types(path):
    obj = {
        "none": None, "bools": [True, False], "ints": (0, -7, 2 ** 70, -(2 ** 63)),
        "floats": [0.1, -0.0, 1e-310, 1.7976931348623157e308, math.inf, -math.inf, math.nan],
        "strs": ["", "ünïcødé ✓", "with \"quotes\" and \\ and \n"], 3: "int key",
        -1: {"nested": [(1, [2, (3,)]), {}], "empty": [], "t": ()},
        "one": 1, "one.0": 1.0, "true": True,
        "tensor": ember.tensor([1.5, -2.0]), "zero-d": ember.tensor(7),
    }
    ember.save(obj, path)
    back = ember.load(path)
    _same(obj, back)
    assert list(back) == list(obj) and isinstance(back[3], str) and 3 in back


def test_optimizer_and_scheduler_states_round_trip(path):
    rng = np.random.default_rng(1)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = optim.Adam([{"params": model[0].parameters()},
                      {"params": model[2].parameters(), "lr": 0.01, "amsgrad": True}], lr=0.1)
    sched = optim.ReduceLROnPlateau(opt, patience=1)
    x = ember.tensor(rng.standard_normal((5, 3)))
    for _ in range(3):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        sched.step(1.0)
    state = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
    ember.save(state, path)
    back = ember.load(path)
    _same({k: dict(v) for k, v in state.items()}, back)
    assert back["sched"]["best"] == 1.0 and back["sched"]["mode_worse"] == math.inf
    assert back["opt"]["param_groups"][1]["betas"] == (0.9, 0.999)   # tuples stay tuples
    assert list(back["opt"]["state"]) == [0, 1, 2, 3]                 # int keys stay ints
    fresh = optim.Adam(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).parameters())
    with pytest.raises(InvalidParameterError, match="2 parameter groups"):  # checks still run
        fresh.load_state_dict(back["opt"])


def test_a_tensor_saved_twice_loads_as_one_object_with_its_require_grad(path):
    w = ember.ones(2, 3).require_grad()
    frozen = ember.zeros(3)
    ember.save({"enc": w, "dec": w, "pair": (frozen, frozen)}, path)
    back = ember.load(path)
    assert back["enc"] is back["dec"] and back["pair"][0] is back["pair"][1]
    assert back["enc"].is_require_grad() and back["enc"].is_leaf
    assert not back["pair"][0].is_require_grad()
    assert len(safetensors.numpy.load_file(path)) == 2


def test_the_file_is_safetensors_with_a_json_structure(path):
    ember.save({"w": ember.tensor([1.0, 2.0]), "step": 5, "best": -math.inf}, path)
    arrays = safetensors.numpy.load_file(path)
    np.testing.assert_array_equal(arrays["0"], [1.0, 2.0])
    meta = ember.io.load_metadata(path)
    assert meta["format"] == "ember.checkpoint" and meta["version"] == "1"
    structure = json.loads(meta["structure"], parse_constant=lambda c: pytest.fail(c))
    assert structure == {"dict": [["w", {"tensor": "0"}], ["step", 5],
                                  ["best", {"float": "-inf"}]]}


def test_load_state_dict_result_prints_as_torchs(path):
    model, tmodel = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    assert repr(model.load_state_dict(model.state_dict())) == \
        repr(tmodel.load_state_dict(tmodel.state_dict())) == "<All keys matched successfully>"
    sd, tsd = dict(model.state_dict()), dict(tmodel.state_dict())
    del sd["bias"], tsd["bias"]
    sd["extra"], tsd["extra"] = ember.zeros(1), torch.zeros(1)
    got = model.load_state_dict(sd, strict=False)
    want = tmodel.load_state_dict(tsd, strict=False)
    assert repr(got) == repr(want) == str(got)
    assert repr(got) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"
    assert got.missing_keys == ["bias"] and got == (["bias"], ["extra"])


# -- resuming a run in a fresh process -----------------------------------------------------------

TRAIN = textwrap.dedent('''
    import numpy as np
    import ember
    from ember import nn, optim
    import ember.nn.functional as F

    def setup():
        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
        decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
        rest = [p for n, p in model.named_parameters() if not n.endswith("weight")]
        opt = optim.Adam([{"params": decay, "weight_decay": 0.01}, {"params": rest, "lr": 0.02}],
                         lr=0.05)
        sched = optim.SequentialLR(opt, [optim.LinearLR(opt, start_factor=0.1, total_iters=8),
                                         optim.CosineAnnealingLR(opt, T_max=40, eta_min=1e-4)],
                                   milestones=[8])
        return model, opt, sched

    def batch(step):
        rng = np.random.default_rng(step)
        x = ember.tensor(rng.standard_normal((8, 4)), dtype="float32")
        y = ember.tensor(rng.integers(0, 3, 8))
        return x, y

    def train(model, opt, sched, start, stop):
        losses = []
        for step in range(start, stop):
            x, y = batch(step)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        return losses
''')

RESUME = TRAIN + textwrap.dedent('''
    import sys
    ckpt_path, out_path = sys.argv[1], sys.argv[2]
    model, opt, sched = setup()
    ckpt = ember.load(ckpt_path)
    keys = model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    sched.load_state_dict(ckpt["scheduler"])
    losses = train(model, opt, sched, ckpt["step"], 40)
    ember.save({"losses": losses, "model": model.state_dict(), "keys": repr(keys),
                "lr": sched.get_last_lr()}, out_path)
''')


def test_resuming_in_a_fresh_process_continues_bit_for_bit(tmp_path):
    scope = {}
    exec(compile(TRAIN, "train", "exec"), scope)
    # 40 uninterrupted steps
    model, opt, sched = scope["setup"]()
    full = scope["train"](model, opt, sched, 0, 40)
    final = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    final_lr = sched.get_last_lr()
    # 20 steps, a checkpoint, then 20 more in a new Python process
    model, opt, sched = scope["setup"]()
    first = scope["train"](model, opt, sched, 0, 20)
    ckpt, out = str(tmp_path / "run.ckpt"), str(tmp_path / "out.ckpt")
    ember.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(), "step": 20}, ckpt)
    script = tmp_path / "resume.py"
    script.write_text(RESUME)
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, str(script), ckpt, out], env=env, timeout=120,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    result = ember.load(out)
    assert first + result["losses"] == full            # the loss curve, bit for bit
    assert result["keys"] == "<All keys matched successfully>"
    assert result["lr"] == final_lr
    for k, v in result["model"].items():
        assert v.numpy().tobytes() == final[k].tobytes(), k
    # the run trains (on any backend's initial draws): the later losses are lower on average
    assert sum(full[-10:]) < sum(full[:10])


@pytest.mark.numpy_only
def test_training_from_the_numpy_generators_draws_lowers_the_first_loss():
    """From the NumPy generator's initial weights (manual_seed(0)) the last loss is below the
    first; another backend's generator draws other weights, whose first loss may be lower."""
    scope = {}
    exec(compile(TRAIN, "train", "exec"), scope)
    model, opt, sched = scope["setup"]()
    full = scope["train"](model, opt, sched, 0, 40)
    assert full[0] > full[-1]


# -- bad input ----------------------------------------------------------------------------------

class Thing:
    pass


@pytest.mark.parametrize("obj,match", [
    ({"opt": {"param_groups": [{"foo": {1, 2}}]}},
     r"save: obj\['opt'\]\['param_groups'\]\[0\]\['foo'\]: a set is not supported; a "
     r"checkpoint holds None, bools, ints, floats, strs, ember Tensors"),
    ([1, np.zeros(2)], r"save: obj\[1\]: a ndarray is not supported"),
    ((Thing(),), r"obj\[0\]: a Thing is not supported"),
    ({"f": print}, r"obj\['f'\]: a builtin_function_or_method is not supported"),
    ({"m": nn.Linear(1, 1)}, r"obj\['m'\]: a Linear is not supported"),
    ({(1, 2): 3}, r"obj key \(1, 2\): a tuple key is not supported"),
    ({1.5: 3}, r"obj key 1.5: a float key is not supported"),
    ({"a": {True: 3}}, r"obj\['a'\] key True: a bool key is not supported"),
    (b"bytes", r"obj: a bytes is not supported"),
    ({"q": ember.randn(4, 4).quantize_dynamic(ember.QuantScheme())},
     r"obj\['q'\]: a QuantizedTensor is not supported"),
    (torch.ones(2), r"obj: a Tensor is not supported"),
])
def test_unsupported_objects_name_where_they_are(path, obj, match):
    with pytest.raises(InvalidParameterError, match=match):
        ember.save(obj, path)
    assert not os.path.exists(path)


def test_a_failed_save_leaves_the_old_file(path):
    ember.save({"a": 1}, path)
    loop = [1]
    loop.append(loop)
    with pytest.raises(InvalidParameterError, match=r"save: obj\['x'\]\[1\] contains itself"):
        ember.save({"x": loop}, path)
    assert ember.load(path) == {"a": 1}
    assert not [f for f in os.listdir(os.path.dirname(path)) if f.endswith(".tmp")]


def test_bad_paths_and_files(tmp_path, path):
    with pytest.raises(InvalidParameterError, match=r"save: path must be a str or os.PathLike, "
                                                    r"got int 3"):
        ember.save({}, 3)
    with pytest.raises(InvalidParameterError, match=r"load: path must be a str"):
        ember.load(b"x.ckpt")
    with pytest.raises(FileNotFoundError):
        ember.load(str(tmp_path / "missing.ckpt"))
    ember.io.save_file({"w": ember.ones(2)}, path)
    with pytest.raises(InvalidParameterError, match=r"not an ember checkpoint.*ember.io.load_file"):
        ember.load(path)
    bad = str(tmp_path / "bad.txt")
    with open(bad, "wb") as f:
        f.write(b"not a checkpoint at all")
    with pytest.raises(InvalidParameterError, match=r"bad.txt"):
        ember.load(bad)


@pytest.mark.parametrize("structure,match", [
    ("{not json", r"obj: its structure is not JSON"),
    ('{"tensor": "9"}', r"obj: tensor '9' is not in the file"),
    ('{"dict": [["a", {"float": "big"}]]}', r"obj\['a'\]: unexpected JSON object"),
    ('{"dict": [[1.5, 2]]}', r"obj: a dict entry \[1.5, 2\] is not a \[key, value\] pair"),
    ('[{"__reduce__": ["os.system", ["echo hi"]]}]', r"obj\[0\]: unexpected JSON object"),
    ('{"tuple": 3}', r"obj: unexpected JSON object"),
])
def test_damaged_structures_raise_naming_the_place(path, structure, match):
    ember.io.save_file({"0": ember.ones(1)}, path, metadata={
        "format": "ember.checkpoint", "version": "1", "structure": structure})
    with pytest.raises(InvalidParameterError, match=r"is not a valid ember checkpoint: " + match):
        ember.load(path)


def test_a_newer_version_is_refused(path):
    ember.io.save_file({}, path, metadata={"format": "ember.checkpoint", "version": "2",
                                           "structure": "1"})
    with pytest.raises(InvalidParameterError, match=r"version '2'; this ember reads version 1"):
        ember.load(path)


def test_exported_as_torch_save_and_load():
    assert ember.save is ember.io.checkpoint.save and ember.load is ember.io.checkpoint.load
    assert ember.io.save is not ember.save   # ember.io.save stays safetensors bytes


def test_docstring_examples_run():
    import doctest
    result = doctest.testmod(ember.io.checkpoint)
    assert result.attempted >= 10 and result.failed == 0


@pytest.mark.skipif(ember.Device("torch:cpu") not in ember.devices(), reason="needs PyTorch")
def test_checkpoint_from_and_to_a_device(tmp_path):
    path = str(tmp_path / "ckpt.safetensors")
    w = ember.tensor([1.0, 2.0], device="torch:cpu").require_grad()
    ember.save({"w": w, "n": ember.tensor([3], dtype="uint8", device="cpu")}, path)
    for device in ("cpu", "torch:cpu"):
        ckpt = ember.load(path, device=device)
        assert ckpt["w"].device == device and ckpt["w"].is_require_grad()
        assert ckpt["w"].tolist() == [1.0, 2.0] and ckpt["n"].device == device

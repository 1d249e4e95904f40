"""``ember.torch.save`` / ``ember.torch.load`` against PyTorch (the oracle): files travel both
ways in PyTorch's zip format; weights-only loading runs no code; bad files raise typed errors."""

import collections
import io
import json
import os
import pathlib
import pickle
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import DeviceError, InvalidParameterError, KindError

ROOT = pathlib.Path(__file__).resolve().parents[2]
DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]
SHAPES = [(), (0,), (2, 0, 3), (5,), (3, 4), (2, 3, 4)]


def _torch_values(name, shape, seed=0):
    """A torch tensor of dtype ``name`` and ``shape`` with random values."""
    rng = np.random.default_rng(seed)
    dtype = getattr(torch, name)
    if name == "bool":
        values = rng.random(shape) > 0.5
    elif dtype.is_complex:
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    elif dtype.is_floating_point:
        values = rng.standard_normal(shape) * 10
    else:
        high = 100 if name != "int8" else 50
        values = rng.integers(0 if name.startswith("uint") else -high, high, shape)
    return torch.from_numpy(np.asarray(values)).to(dtype)


def _ember_of(tt):
    """The ember.torch tensor with the values, dtype and shape of torch tensor ``tt``."""
    name = str(tt.dtype).split(".")[1]
    flat = tt.reshape(-1)
    if tt.dtype == torch.bfloat16:
        values = ember.tensor(flat.float().numpy()).cast(ember.bfloat16)
    elif tt.dtype in (torch.uint16, torch.uint32, torch.uint64):
        values = ember.tensor(flat.to(torch.int64).numpy()).cast(getattr(ember, name))
    else:
        values = ember.tensor(flat.numpy(), dtype=getattr(ember, name))
    return et.as_torch(values.reshape(tuple(tt.shape)))


def _same(e, t):
    """ember.torch tensor ``e`` has torch tensor ``t``'s dtype, shape and values."""
    assert isinstance(e, et.Tensor), type(e)
    assert e.dtype.name == str(t.dtype).split(".")[1]
    assert tuple(e.shape) == tuple(t.shape)
    wide = torch.float32 if t.dtype == torch.bfloat16 else (
        torch.int64 if t.dtype in (torch.uint16, torch.uint32, torch.uint64) else t.dtype)
    got = e.tolist()
    assert got == t.to(wide).tolist(), (got, t)


def _same_tree(e, t):
    """``e`` (loaded by ember) equals ``t`` (torch's), container by container."""
    if isinstance(t, torch.Tensor):
        _same(e, t)
        assert e.requires_grad == t.requires_grad
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in t:
            _same_tree(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t)
        for a, b in zip(e, t):
            _same_tree(a, b)
    elif isinstance(t, torch.dtype):
        assert e is getattr(ember, str(t).split(".")[1])
    elif isinstance(t, torch.Size):
        assert isinstance(e, et.Size) and tuple(e) == tuple(t)
    else:
        assert type(e) is type(t) and (e == t or (e != e and t != t)), (e, t)


def _roundtrip(obj, **load_args):
    buf = io.BytesIO()
    et.save(obj, buf)
    buf.seek(0)
    return et.load(buf, **load_args)


# -- ember -> ember ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roundtrip_every_dtype_and_shape(name, shape):
    tt = _torch_values(name, shape)
    back = _roundtrip({"x": _ember_of(tt)})["x"]
    _same(back, tt)
    assert back.device == ember.get_default_device()


@pytest.mark.parametrize("name", ["float32", "int16", "complex128", "bfloat16", "bool"])
def test_roundtrip_non_contiguous(name):
    tt = _torch_values(name, (4, 6), seed=1)
    e = _ember_of(tt)
    views = {"t": (e.t(), tt.t()), "cols": (e[:, 1:4], tt[:, 1:4]),
             "perm": (e.reshape(2, 2, 6).permute(2, 0, 1), tt.reshape(2, 2, 6).permute(2, 0, 1))}
    back = _roundtrip({k: v[0] for k, v in views.items()})
    for k, (_, expected) in views.items():
        _same(back[k], expected)


def test_namespace_has_these_functions():
    assert et.save.__module__ == et.load.__module__ == "ember.torch.serialization"


def test_roundtrip_containers_and_python_values():
    obj = {"list": [1, -2.5, "s", None, True], "tuple": (float("inf"), 2 ** 80, -(2 ** 70)),
           "od": collections.OrderedDict([("b", 1), ("a", 2)]), "set": {1, 2},
           "frozen": frozenset({"x"}), "bytes": b"\x00\xff", "complex": 1 - 2j,
           "nested": {0: {1: [(3,)]}}, "dtype": et.float16, "size": et.Size([2, 0])}
    back = _roundtrip(obj)
    assert back == obj
    assert type(back["od"]) is collections.OrderedDict and list(back["od"]) == ["b", "a"]
    assert back["dtype"] is et.float16 and back["dtype"] == ember.float16
    assert isinstance(back["size"], et.Size)


def test_unrestricted_loads_give_python_own_containers():
    obj = {"od": collections.OrderedDict(a=et.ones(1)), "set": {1}, "b": b"x", "c": 1j,
           "counter": collections.Counter("aab")}
    back = _roundtrip(obj, weights_only=False)
    assert type(back["od"]) is collections.OrderedDict and back["od"]["a"].tolist() == [1.0]
    assert back["set"] == {1} and back["b"] == b"x" and back["c"] == 1j
    assert back["counter"] == collections.Counter("aab")


def test_roundtrip_keeps_requires_grad_and_ties():
    w = et.as_torch(ember.tensor([1.0, 2.0]).require_grad())
    back = _roundtrip({"a": w, "b": w, "c": w.detach()})
    assert back["a"] is back["b"] and back["a"].requires_grad
    assert not back["c"].requires_grad and back["c"].tolist() == [1.0, 2.0]


def test_ember_api_tensors_save_too():
    back = _roundtrip([ember.arange(4).reshape(2, 2)])
    assert isinstance(back[0], et.Tensor) and back[0].tolist() == [[0, 1], [2, 3]]


# -- ember -> torch ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_torch_reads_every_dtype(tmp_path, name):
    tensors = {str(shape): _torch_values(name, shape, seed=2) for shape in SHAPES}
    path = tmp_path / "e.pt"
    et.save({k: _ember_of(v) for k, v in tensors.items()}, path)
    got = torch.load(path, weights_only=True)
    assert list(got) == list(tensors)
    for k, v in tensors.items():
        assert got[k].dtype == v.dtype and got[k].shape == v.shape
        assert torch.equal(got[k], v)


def test_torch_reads_containers_views_and_flags(tmp_path):
    base = _torch_values("float32", (3, 4), seed=3)
    e = _ember_of(base)
    w = et.as_torch(ember.ones(2).require_grad())
    obj = collections.OrderedDict(
        view=e.t(), grad=w, tied=(w, w), n=[1, 2.5, None, True, "s", b"b", 1 + 1j],
        s={3}, dtype=et.bfloat16, size=et.Size([1, 2]), dev=ember.Device("cpu"))
    buf = io.BytesIO()
    et.save(obj, buf)
    buf.seek(0)
    got = torch.load(buf, weights_only=True)
    assert type(got) is collections.OrderedDict and list(got) == list(obj)
    assert torch.equal(got["view"], base.t()) and got["view"].is_contiguous()
    assert got["grad"].requires_grad and got["tied"][0] is got["tied"][1] is got["grad"]
    assert got["n"] == [1, 2.5, None, True, "s", b"b", 1 + 1j] and got["s"] == {3}
    assert got["dtype"] is torch.bfloat16 and got["size"] == torch.Size([1, 2])
    assert got["dev"] == torch.device("cpu")


def test_torch_loads_ember_model_and_optimizer_state(tmp_path):
    model = et.nn.Linear(3, 2)
    opt = ember.optim.Adam(model.parameters(), lr=0.01)
    loss = model(et.ones(4, 3)).sum()
    loss.backward()
    opt.step()
    path = str(tmp_path / "ckpt.pt")
    state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 7}
    et.save(state, path)
    got = torch.load(path, weights_only=True)
    assert got["epoch"] == 7
    for k, v in state["model"].items():
        assert got["model"][k].tolist() == v.tolist()
    ref = torch.nn.Linear(3, 2)
    ref.load_state_dict(got["model"])
    assert torch.allclose(ref(torch.ones(1, 3)), torch.tensor(model(et.ones(1, 3)).tolist()))
    assert json.dumps(got["opt"], default=lambda t: t.tolist()) == json.dumps(
        state["opt"], default=lambda t: t.tolist())


def test_torch_refuses_what_weights_only_refuses_and_reads_it_unrestricted(tmp_path):
    point = collections.namedtuple("Point", "x y")
    path = tmp_path / "nt.pt"
    et.save({"arr": np.arange(3)}, path)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)
    assert torch.load(path, weights_only=False)["arr"].tolist() == [0, 1, 2]
    with pytest.raises(InvalidParameterError, match="numpy"):
        et.load(path)
    assert et.load(path, weights_only=False)["arr"].tolist() == [0, 1, 2]
    globals()["Point"] = point  # pickled by reference to this module
    point.__module__ = __name__
    et.save(point(et.ones(1), 2), path)
    back = et.load(path, weights_only=False)
    assert type(back) is point and back.x.tolist() == [1.0] and back.y == 2
    with pytest.raises(InvalidParameterError, match="Point"):
        et.load(path)


# -- torch -> ember ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPES)
def test_ember_reads_every_dtype(name):
    tensors = {str(shape): _torch_values(name, shape, seed=4) for shape in SHAPES}
    buf = io.BytesIO()
    torch.save(tensors, buf)
    buf.seek(0)
    got = et.load(buf)
    assert list(got) == list(tensors)
    for k, v in tensors.items():
        _same(got[k], v)


def _torch_state():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3),
                                torch.nn.Flatten(), torch.nn.Linear(12, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.1)
    model(torch.randn(2, 2, 4, 4)).sum().backward()
    opt.step()
    return model, opt


def test_ember_reads_torch_model_and_optimizer_state(tmp_path):
    model, opt = _torch_state()
    state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3,
             "best": float("nan"), "sched": {"milestones": collections.Counter({2: 1})}}
    for f in (tmp_path / "a.pt", str(tmp_path / "b.pt")):
        torch.save(state, f)
        got = et.load(f)
        _same_tree(got, state)
        assert got["model"]._metadata == state["model"]._metadata
        assert type(got["sched"]["milestones"]) is collections.Counter


def test_ember_model_loads_torch_state_dict():
    torch.manual_seed(1)
    ref = torch.nn.Linear(3, 2)
    buf = io.BytesIO()
    torch.save(ref.state_dict(), buf)
    buf.seek(0)
    model = et.nn.Linear(3, 2)
    model.load_state_dict(et.load(buf))
    x = torch.randn(4, 3)
    np.testing.assert_allclose(model(et.tensor(x.numpy())).tolist(), ref(x).tolist(),
                               rtol=1e-6, atol=1e-6)


def test_ember_reads_views_parameters_and_shared_storages():
    base = torch.arange(24.0).reshape(4, 6)
    obj = {"t": base.t(), "slice": base[1:, 2:5], "step": base[::2, ::3], "same": base,
           "expand": torch.arange(3).expand(4, 3), "p": torch.nn.Parameter(torch.ones(2)),
           "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
           "grad": torch.ones(3, requires_grad=True), "zero_dim": base[2, 3]}
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    got = et.load(buf)
    _same_tree(got, obj)
    assert got["p"].requires_grad and not got["frozen"].requires_grad


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_ember_reads_other_pickle_protocols(protocol):
    obj = {"x": torch.arange(4, dtype=torch.int32), "s": {1}, "b": b"ab", "f": frozenset("a"),
           "od": collections.OrderedDict(a=torch.ones(1)), "big": 2 ** 100}
    buf = io.BytesIO()
    torch.save(obj, buf, pickle_protocol=protocol)
    buf.seek(0)
    _same_tree(et.load(buf), obj)


def test_torch_reads_ember_pickle_protocols():
    for protocol in (3, 4, 5):
        buf = io.BytesIO()
        et.save({"x": et.ones(2)}, buf, pickle_protocol=protocol)
        buf.seek(0)
        assert torch.load(buf, weights_only=False)["x"].tolist() == [1.0, 1.0]
        buf.seek(0)
        assert et.load(buf)["x"].tolist() == [1.0, 1.0]


def test_tensor_attributes_are_refused_and_plain_rebuilds_load():
    t = torch.ones(2)
    t.note = "x"
    buf = io.BytesIO()
    torch.save({"t": t}, buf)
    _refused(buf.getvalue(), "attributes")
    pkl = (b"\x80\x02" + _global("torch._tensor", "_rebuild_from_type_v2") + _tuple([
        _global("torch._utils", "_rebuild_tensor_v2"), _global("torch", "Tensor"),
        _tensor_args("FloatStorage", "0", 2, 0, (2,), (1,)), b"}"]) + b"R.")
    data = _archive({"data.pkl": pkl, "data/0": struct.pack("<2f", 3, 4)})
    _same(et.load(io.BytesIO(data)), torch.load(io.BytesIO(data), weights_only=True))


def test_torch_memory_maps_ember_files(tmp_path):
    path = tmp_path / "m.pt"
    et.save({"a": et.arange(10.0), "b": et.ones(3, dtype=et.int16)}, path)
    got = torch.load(path, mmap=True, weights_only=True)
    assert got["a"].tolist() == list(map(float, range(10))) and got["b"].tolist() == [1, 1, 1]


def test_ember_reads_unseekable_file_objects():
    class Stream:
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def read(self, n=-1):
            return self.inner.read(n)

    buf = io.BytesIO()
    torch.save([torch.ones(2)], buf)
    assert et.load(Stream(buf.getvalue()))[0].tolist() == [1.0, 1.0]


def test_unrestricted_loads_of_bad_pickles_are_typed_errors():
    for pkl in (_global("no_such_module_xyz", "f") + b".", b"]]", b"\x80\x02\xff"):
        data = _archive({"data.pkl": pkl})
        with pytest.raises(InvalidParameterError, match="cannot be unpickled"):
            et.load(io.BytesIO(data), weights_only=False)


def test_whole_ember_module_needs_weights_only_false(tmp_path):
    model = et.nn.Sequential(et.nn.Linear(3, 4), et.nn.ReLU(), et.nn.Linear(4, 1))
    path = tmp_path / "model.pt"
    et.save(model, path)
    back = et.load(path, weights_only=False)
    x = et.ones(2, 3)
    assert back(x).tolist() == model(x).tolist()
    with pytest.raises(InvalidParameterError, match="weights_only=True loading refuses"):
        et.load(path)


def test_ember_save_checkpoints_load_too(tmp_path):
    path = tmp_path / "c.ckpt"
    ember.save({"w": ember.ones(2).require_grad(), "n": (1, "a")}, path)
    for f in (path, io.BytesIO(path.read_bytes())):
        got = et.load(f)
        assert isinstance(got["w"], et.Tensor) and got["w"].requires_grad
        assert got["w"].tolist() == [1.0, 1.0] and got["n"] == (1, "a")


def test_load_without_torch_in_a_subprocess(tmp_path):
    model, opt = _torch_state()
    path = tmp_path / "torch.pt"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
    code = (
        "import sys, json; sys.modules['torch'] = None\n"
        "import ember.torch as et\n"
        f"state = et.load({str(path)!r})\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print(json.dumps({k: [v.dtype.name, v.tolist()] for k, v in state['model'].items()}))\n"
        "print(json.dumps(state['opt']['param_groups']))\n")
    env = dict(os.environ, EMBER_DEVICE="cpu", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()[-2:]
    expected = {k: [str(v.dtype).split(".")[1], v.tolist()]
                for k, v in model.state_dict().items()}
    assert json.loads(first) == expected
    assert json.loads(second) == json.loads(json.dumps(opt.state_dict()["param_groups"]))


# -- map_location -----------------------------------------------------------------------------

def _saved(tensor_location="cpu"):
    """A torch-format file with one float32 tensor [1, 2] saved at ``tensor_location``."""
    data = _tensor_pickle("FloatStorage", "0", 2, 0, (2,), (1,), location=tensor_location)
    return _archive({"data.pkl": data, "data/0": struct.pack("<2f", 1, 2)})


@pytest.mark.parametrize("map_location", [
    None, "cpu", "CPU", et.device("cpu"), {"cpu": "cpu"}, {"cuda:0": et.device("cpu")},
    lambda storage, loc: storage, lambda storage, loc: None, lambda s, loc: s.cpu()])
def test_map_location_to_cpu(map_location):
    got = et.load(io.BytesIO(_saved()), map_location=map_location)
    assert got.tolist() == [1.0, 2.0]
    default = ember.get_default_device()
    on_host = default.type == "cpu" or default.backend_name == "xp"  # xp: saved as "cpu"
    assert got.device == (default if on_host else ember.Device("cpu"))


def test_map_location_names_a_device():
    got = et.load(io.BytesIO(_saved()), map_location=ember.Device("torch:cpu"))
    assert got.device == ember.Device("torch:cpu") and got.tolist() == [1.0, 2.0]
    got = et.load(io.BytesIO(_saved()), map_location="torch:cpu")
    assert got.device == ember.Device("torch:cpu") and got.tolist() == [1.0, 2.0]
    got = et.load(io.BytesIO(_saved()), map_location=lambda s, loc: s.to("torch:cpu"))
    assert got.device == ember.Device("torch:cpu")


def test_cuda_tensors_map_to_cpu():
    for m in ("cpu", {"cuda:0": "cpu"}, lambda s, loc: s):
        got = et.load(io.BytesIO(_saved("cuda:0")), map_location=m)
        assert got.tolist() == [1.0, 2.0] and got.device.type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(DeviceError, match="map_location='cpu'"):
            et.load(io.BytesIO(_saved("cuda:0")))


@pytest.mark.parametrize("map_location,error", [
    (5, InvalidParameterError), ({"cpu": 1}, InvalidParameterError),
    ("nowhere", InvalidParameterError), (lambda s, loc: "x", InvalidParameterError)])
def test_bad_map_location(map_location, error):
    with pytest.raises(error, match="map_location"):
        et.load(io.BytesIO(_saved()), map_location=map_location)


def test_bad_arguments():
    buf = io.BytesIO(_saved())
    for kwargs in ({"weights_only": 1}, {"mmap": "yes"}, {"mmap": True}, {"pickle_module": json},
                   {"errors": "strict"}):
        with pytest.raises(InvalidParameterError):
            et.load(buf, **kwargs)
    for kwargs in ({"pickle_protocol": 1}, {"pickle_module": json},
                   {"_use_new_zipfile_serialization": False}):
        with pytest.raises(InvalidParameterError):
            et.save({}, io.BytesIO(), **kwargs)
    for f in (5, io.StringIO()):
        with pytest.raises(InvalidParameterError, match="binary file object"):
            et.save({}, f)
        with pytest.raises(InvalidParameterError, match="binary file object"):
            et.load(f)
    with pytest.raises(InvalidParameterError, match="cannot be pickled"):
        et.save({"f": lambda: 1}, io.BytesIO())


def test_paths(tmp_path):
    path = tmp_path / "p.pt"
    path.write_bytes(b"old")
    et.save([et.ones(1)], path)
    assert et.load(path, mmap=True)[0].tolist() == [1.0]
    assert [p.name for p in tmp_path.iterdir()] == ["p.pt"]  # no temporary file left
    with pytest.raises(FileNotFoundError):
        et.load(tmp_path / "missing.pt")
    with pytest.raises(InvalidParameterError, match="folder"):
        et.load(tmp_path)


# -- untrusted files --------------------------------------------------------------------------

def _global(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def _int(n):
    if -2 ** 31 <= n < 2 ** 31:
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw


def _str(s):
    raw = s.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def _tuple(items):
    return b"(" + b"".join(items) + b"t"


def _tensor_args(storage, key, numel, offset, size, stride, location="cpu"):
    """The pickled argument tuple of ``_rebuild_tensor_v2`` for one tensor."""
    pid = _tuple([_str("storage"), _global("torch", storage), _str(key), _str(location),
                  _int(numel)])
    return _tuple([pid + b"Q", _int(offset), _tuple(map(_int, size)),
                   _tuple(map(_int, stride)), b"\x89",
                   _global("collections", "OrderedDict") + b")R"])


def _tensor_pickle(storage, key, numel, offset, size, stride, location="cpu"):
    """data.pkl of one tensor, as torch.save writes it, assembled opcode by opcode."""
    return (b"\x80\x02" + _global("torch._utils", "_rebuild_tensor_v2")
            + _tensor_args(storage, key, numel, offset, size, stride, location) + b"R.")


def _archive(records, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as z:
        for name, data in {**records, "version": b"3\n"}.items():
            z.writestr(f"archive/{name}", data)
    return buf.getvalue()


def _refused(data, match, error=InvalidParameterError):
    with pytest.raises(error, match=match) as info:
        et.load(io.BytesIO(data))
    return info.value


def test_crafted_tensor_pickle_loads_like_torch():
    data = _archive({"data.pkl": _tensor_pickle("FloatStorage", "0", 6, 1, (2, 2), (3, 1)),
                     "data/0": np.arange(6, dtype="<f4").tobytes()})
    expected = torch.load(io.BytesIO(data), weights_only=True)
    _same(et.load(io.BytesIO(data)), expected)


def test_big_endian_files_load_like_torch():
    values = np.array([1.5, -2.0, 3.25], dtype=">f4")
    for storage, raw, dtype in (("FloatStorage", values.tobytes(), "float32"),
                                ("ComplexFloatStorage", values[:2].tobytes(), "complex64")):
        n = 3 if dtype == "float32" else 1
        data = _archive({"data.pkl": _tensor_pickle(storage, "0", n, 0, (n,), (1,)),
                         "byteorder": b"big", "data/0": raw})
        _same(et.load(io.BytesIO(data)), torch.load(io.BytesIO(data), weights_only=True))


MARKER = "ember_pickle_ran"


@pytest.mark.parametrize("payload", [
    lambda cmd: _global("os", "system") + _tuple([_str(cmd)]) + b"R.",
    lambda cmd: _global("posix", "system") + _tuple([_str(cmd)]) + b"R.",
    lambda cmd: _global("__builtin__", "eval") + _tuple([_str(
        f"__import__('os').system({cmd!r})")]) + b"R.",
    lambda cmd: _str("builtins") + _str("exec") + b"\x93" + _tuple([_str(
        f"__import__('os').system({cmd!r})")]) + b"R.",
    lambda cmd: _global("subprocess", "Popen") + _tuple([_str(cmd)]) + b"\x81.",
])
def test_malicious_pickles_run_nothing(tmp_path, payload):
    marker = tmp_path / MARKER
    data = _archive({"data.pkl": b"\x80\x02" + payload(f"touch {marker}")})
    with pytest.raises(pickle.UnpicklingError):  # the oracle refuses it too
        torch.load(io.BytesIO(data), weights_only=True)
    err = _refused(data, "refuses")
    assert err.param == "f" and any(n in str(err) for n in ("system", "eval", "exec", "Popen"))
    assert not marker.exists()


@pytest.mark.parametrize("pkl,match", [
    (_global("_codecs", "encode") + _tuple([_str("x"), _str("zlib_codec")]) + b"R.",
     "malformed"),
    (_global("torch", "Size") + _tuple([_tuple([_int(-1)])]) + b"R.", "malformed"),
    (_global("collections", "OrderedDict") + b")R}" + _str("__class__") + b"Nsb.",
     "sets the state"),
    (b"]" + _global("collections", "OrderedDict") + b"\x85b.", "sets the state"),
    (b"}" + _str("k") + b"a.", "adds items to a dict"),
    (_tuple([_str("notstorage"), _int(1)]) + b"Q.", "persistent id"),
    (b"h\x05.", "memo entry 5"),
    (b"]]]", "ends at byte"),
    (b"]]", "ends at byte"),
    (b"t.", "MARK"),
    (b"I1\n.", "opcode INT"),
    (b"]]].", "stack"),
    (_global("torch", "FooStorage"), "torch.FooStorage"),
])
def test_malformed_pickles(pkl, match):
    _refused(_archive({"data.pkl": b"\x80\x02" + pkl}), match)


def test_foreign_dtypes_are_kind_errors():
    pkl = _tensor_pickle("QInt8Storage", "0", 1, 0, (1,), (1,))
    _refused(_archive({"data.pkl": pkl, "data/0": b"\x00"}), "QInt8Storage", KindError)
    buf = io.BytesIO()
    torch.save({"f8": torch.zeros(2, dtype=torch.float8_e5m2)}, buf)
    _refused(buf.getvalue(), "float8_e5m2", KindError)


@pytest.mark.parametrize("numel,record,offset,size,stride,match", [
    (6, 24, 1, (2, 3), (3, 1), "reaches element 6 of storage '0', which has 6"),
    (6, 24, 0, (7,), (1,), "reaches element 6"),
    (6, 24, 10 ** 6, (1,), (1,), "reaches element"),
    (6, 20, 0, (5,), (1,), "needs 24 bytes; its record holds 20"),
    (6, 24, 0, (-1,), (1,), "ints >= 0"),
    (6, 24, 0, (2,), (-1,), "ints >= 0"),
    (6, 24, -1, (2,), (1,), "ints >= 0"),
    (6, 24, 0, (2, 3), (1,), "as many strides as sizes"),
    (6, 24, 0, (2 ** 62, 2 ** 62), (0, 0), "too large"),
    (6, 24, 0, (2 ** 20, 2 ** 20), (0, 0), "more than the file's size plus"),
    (6, 24, 0, (1,) * 65, (1,) * 65, "65 dims"),
])
def test_tensors_that_do_not_fit_their_storage(numel, record, offset, size, stride, match):
    data = _archive({"data.pkl": _tensor_pickle("FloatStorage", "0", numel, offset, size,
                                                stride),
                     "data/0": bytes(record)})
    _refused(data, match)


def test_repeated_tensors_are_bounded_in_total(monkeypatch):
    from ember.torch import serialization
    monkeypatch.setattr(serialization, "_MAX_REPEAT", 2 ** 20)  # 1 MiB instead of 1 GiB
    # each tensor repeats one element into 256 KiB: three fit the budget, five do not
    one = _tensor_args("FloatStorage", "0", 1, 0, (2 ** 16,), (0,))
    rebuild = _global("torch._utils", "_rebuild_tensor_v2")
    for count, ok in ((3, True), (5, False)):
        pkl = b"\x80\x02(" + (rebuild + one + b"R") * count + b"l."
        data = _archive({"data.pkl": pkl, "data/0": bytes(4)})
        if ok:
            got = et.load(io.BytesIO(data))
            assert len(got) == count and got[2].tolist() == [0.0] * 2 ** 16
        else:
            _refused(data, "more than the file's size plus")


def test_expanded_tensors_load_like_torch():
    data = _archive({"data.pkl": _tensor_pickle("IntStorage", "0", 3, 0, (4, 3), (0, 1)),
                     "data/0": struct.pack("<3i", 7, 8, 9)})
    _same(et.load(io.BytesIO(data)), torch.load(io.BytesIO(data), weights_only=True))


def test_missing_storage_record_and_bad_bools():
    _refused(_archive({"data.pkl": _tensor_pickle("FloatStorage", "7", 1, 0, (1,), (1,))}),
             "no record 'data/7'")
    pkl = _tensor_pickle("BoolStorage", "0", 2, 0, (2,), (1,))
    _refused(_archive({"data.pkl": pkl, "data/0": b"\x01\x02"}), "other than 0 and 1")


@pytest.mark.parametrize("pkl", [
    b"]" * 100_000 + b"a" * 99_999 + b".",                          # [[[...]]]
    b"(" * 100_000 + b"t" * 100_000 + b".",                          # (((...),),)
    b"}" + (b"(" + _str("k") + b"}") * 5000 + b"u" * 5000 + b".",   # {"k": {"k": ...}}
])
def test_deep_nesting_is_refused_without_recursion(pkl):
    _refused(_archive({"data.pkl": b"\x80\x02" + pkl}), "nest more than 1000 deep")


def test_nesting_within_the_limit_loads():
    depth = 999
    data = _archive({"data.pkl": b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."})
    x = et.load(io.BytesIO(data))
    for _ in range(depth - 1):
        x = x[0]
    assert x == []


def _valid_file():
    buf = io.BytesIO()
    torch.save({"w": torch.arange(100.0), "n": 3}, buf)
    return buf.getvalue()


def test_truncated_files():
    data = _valid_file()
    for n in list(range(0, 200, 7)) + list(range(200, len(data), 97)):
        with pytest.raises(InvalidParameterError, match="not a|empty|truncated|readable"):
            et.load(io.BytesIO(data[:n]))


def test_corrupted_bytes():
    data = bytearray(_valid_file())
    start = data.index(b"archive/data/0") if b"archive/data/0" in data else data.index(b"/data/0")
    data[start + 100] ^= 0xFF  # inside the storage's bytes (after the local header)
    _refused(bytes(data), "CRC|cannot be read")


def test_wrong_magic_empty_and_legacy():
    _refused(b"", "is empty")
    _refused(b"GIF89a" + bytes(100), "not a checkpoint")
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    _refused(buf.getvalue(), "legacy")


def test_archive_structure_is_checked():
    _refused(_archive({"byteorder": b"little"}), "no data.pkl record")
    _refused(_archive({"data.pkl": b"\x80\x02N.", "byteorder": b"middle"}), "byteorder")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02N.")
        z.writestr("other/x", b"")
    _refused(buf.getvalue(), "not in the archive's folder")


def test_zip_bombs_are_refused():
    big = _archive({"data.pkl": b"\x80\x02N.", "data/0": bytes(10 ** 7)}, zipfile.ZIP_DEFLATED)
    assert len(big) < 10 ** 5
    _refused(big, "compressed")
    # a stored record whose sizes claim more than the file holds
    data = bytearray(_archive({"data.pkl": b"\x80\x02N.", "data/0": bytes(16)}))
    central = data.index(b"PK\x01\x02" + bytes(0), data.index(b"PK\x01\x02") + 1)
    data[central + 20:central + 28] = struct.pack("<II", 2 ** 31, 2 ** 31)
    _refused(bytes(data), "beyond the file|not a readable zip")


def test_valid_minimal_archive_loads():
    assert et.load(io.BytesIO(_archive({"data.pkl": b"\x80\x02N."}))) is None


def test_files_without_byteorder_record_are_little_endian():
    buf = io.BytesIO()
    torch.save({"x": torch.arange(3.0)}, buf, _disable_byteorder_record=True)
    buf.seek(0)
    assert et.load(buf)["x"].tolist() == [0.0, 1.0, 2.0]
    buf = io.BytesIO()
    et.save({"x": et.arange(3.0)}, buf, _disable_byteorder_record=True)
    buf.seek(0)
    assert torch.load(buf, weights_only=True)["x"].tolist() == [0.0, 1.0, 2.0]


def test_mutated_pickles_load_or_raise_typed_errors():
    import random
    model, opt = _torch_state()
    buf = io.BytesIO()
    torch.save({"m": model.state_dict(), "o": opt.state_dict(), "s": {1}, "b": b"x",
                "v": torch.arange(10.0)[2:8:2], "u": torch.ones(1, dtype=torch.uint16)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        records = {n.split("/", 1)[1]: z.read(n) for n in z.namelist()}
    rng = random.Random(0)
    outcomes = collections.Counter()
    for _ in range(150):
        pkl = bytearray(records["data.pkl"])
        for _ in range(rng.randint(1, 3)):
            pkl[rng.randrange(len(pkl))] = rng.randrange(256)
        try:
            et.load(io.BytesIO(_archive({**records, "data.pkl": bytes(pkl)})))
            outcomes["loaded"] += 1
        except (InvalidParameterError, KindError, DeviceError):
            outcomes["refused"] += 1
    assert outcomes["refused"] > 0 and sum(outcomes.values()) == 150

"""Tests of ember.io (safetensors files): round trips of every dtype, PyTorch interop under
PyTorch's names, metadata, bad files, and atomic saving."""

import os
import re
import stat

import numpy as np
import pytest
import safetensors.torch as st_torch
import torch

import ember
import ember.io
from ember import InvalidParameterError, KindError, nn
from oracle import TORCH_DTYPES, assert_close, layouts, random_array, to_torch

DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "uint16", "uint32", "uint64", "bool"]
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def _tensor(rng, shape, dtype):
    return ember.from_numpy(random_array(rng, shape, dtype, low=-100, high=100)).cast(dtype)


def _files(folder):
    return sorted(os.listdir(folder))


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_and_shape_round_trips(tmp_path, dtype):
    rng = np.random.default_rng(0)
    tensors = {f"t{i}": _tensor(rng, s, dtype) for i, s in enumerate(SHAPES)}
    path = tmp_path / "all.safetensors"
    ember.io.save_file(tensors, path)
    loaded = ember.io.load_file(path)
    assert sorted(loaded) == sorted(tensors)
    for name, t in tensors.items():
        got = loaded[name]
        assert got.dtype is t.dtype and got.shape == t.shape
        np.testing.assert_array_equal(got.numpy(), t.numpy())
    assert _files(tmp_path) == ["all.safetensors"]  # no temporary file left behind


@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_file_loads_in_torch_and_back(tmp_path, dtype):
    rng = np.random.default_rng(1)
    tensors = {f"layer.{i}": _tensor(rng, s, dtype) for i, s in enumerate(SHAPES)}
    path = str(tmp_path / "e.safetensors")
    ember.io.save_file(tensors, path)
    from_torch = st_torch.load_file(path)
    for name, t in tensors.items():
        assert from_torch[name].dtype == TORCH_DTYPES[dtype]
        assert_close(t, from_torch[name], rtol=0, atol=0)
    path2 = str(tmp_path / "t.safetensors")
    st_torch.save_file({k: v.contiguous() for k, v in from_torch.items()}, path2)
    back = ember.io.load_file(path2)
    for name, t in tensors.items():
        assert back[name].dtype is t.dtype
        np.testing.assert_array_equal(back[name].numpy(), t.numpy())


def test_non_contiguous_tensors_are_saved_by_value(tmp_path):
    rng = np.random.default_rng(2)
    base = random_array(rng, (4, 3), "float32")
    tensors = {name: ember.from_numpy(arr) for name, arr in layouts(base)}
    tensors["transposed"] = ember.from_numpy(base).T
    path = tmp_path / "v.safetensors"
    ember.io.save_file(tensors, path)
    loaded = st_torch.load_file(str(path))
    for name, arr in layouts(base):
        np.testing.assert_array_equal(loaded[name].numpy(), base)
    np.testing.assert_array_equal(loaded["transposed"].numpy(), base.T)


def test_torch_written_file_loads(tmp_path):
    gen = torch.Generator().manual_seed(0)
    tensors = {"a": torch.randn(3, 4, generator=gen), "b": torch.arange(5, dtype=torch.int32),
               "c": torch.randn(2, 2, generator=gen).to(torch.bfloat16),
               "d": torch.tensor([True, False]), "e": torch.tensor(2.5, dtype=torch.float64)}
    path = str(tmp_path / "torch.safetensors")
    st_torch.save_file(tensors, path, metadata={"origin": "torch"})
    loaded = ember.io.load_file(path)
    for name, t in tensors.items():
        assert_close(loaded[name], t, rtol=0, atol=0)
    assert ember.io.load_metadata(path) == {"origin": "torch"}


def _ember_net():
    ember.manual_seed(0)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 3))


def _torch_net():
    return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4),
                               torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                               torch.nn.Linear(16, 3))


def test_module_round_trip_through_torch(tmp_path):
    rng = np.random.default_rng(3)
    x = ember.tensor(random_array(rng, (5, 1, 4, 4), "float32"))
    net = _ember_net()
    net.train()
    net(x)  # moves BatchNorm's running statistics off their initial values
    net.eval()
    want = net(x).numpy().copy()
    path = str(tmp_path / "net.safetensors")
    ember.io.save_file(net.state_dict(), path)
    state = st_torch.load_file(path)
    assert set(state) == set(_torch_net().state_dict())
    tnet = _torch_net()
    tnet.load_state_dict(state, strict=True)
    tnet.eval()
    with torch.no_grad():
        tout = tnet(to_torch(x))
    np.testing.assert_allclose(tout.numpy(), want, rtol=1e-5, atol=1e-6)
    path2 = str(tmp_path / "from_torch.safetensors")
    st_torch.save_file(tnet.state_dict(), path2)
    fresh = _ember_net()
    fresh.load_state_dict(ember.io.load_file(path2))
    fresh.eval()
    np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-6, atol=1e-7)
    # Module.save_file / load_file go through ember.io too
    path3 = str(tmp_path / "module.safetensors")
    net.save_file(path3)
    again = _ember_net().load_file(path3)
    again.eval()
    np.testing.assert_array_equal(again(x).numpy(), want)


def test_metadata_round_trip_and_bytes(tmp_path):
    path = tmp_path / "m.safetensors"
    ember.io.save_file({"x": ember.ones(2)}, path, metadata={"epochs": "3", "note": "é"})
    assert ember.io.load_metadata(path) == {"epochs": "3", "note": "é"}
    ember.io.save_file({"x": ember.ones(2)}, path)
    assert ember.io.load_metadata(path) == {}
    data = ember.io.save({"y": ember.tensor([[1, 2]], dtype="int16")}, metadata={"k": "v"})
    assert isinstance(data, bytes)
    assert ember.io.load(data)["y"].tolist() == [[1, 2]]
    assert ember.io.load(bytearray(data))["y"].dtype is ember.int16
    assert st_torch.load(data)["y"].tolist() == [[1, 2]]


def test_empty_dict_round_trips(tmp_path):
    path = tmp_path / "none.safetensors"
    ember.io.save_file({}, path)
    assert ember.io.load_file(path) == {}


def test_loaded_tensors_are_independent(tmp_path):
    path = tmp_path / "i.safetensors"
    ember.io.save_file({"a": ember.ones(3), "b": ember.zeros(3)}, path)
    loaded = ember.io.load_file(path)
    a = loaded["a"]
    w = a.require_grad()
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    again = ember.io.load_file(path)
    assert not np.shares_memory(again["a"].numpy(), a.numpy())


def test_saved_file_mode_follows_umask(tmp_path):
    path = tmp_path / "mode.safetensors"
    old = os.umask(0o022)
    try:
        ember.io.save_file({"x": ember.ones(1)}, path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    os.chmod(path, 0o600)
    ember.io.save_file({"x": ember.zeros(1)}, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


# -- bad files ----------------------------------------------------------------------------------

def _good_bytes():
    return ember.io.save({"w": ember.ones(4, 4), "b": ember.ones(4)})


@pytest.mark.parametrize("content,reason", [
    (b"", "it is empty"),
    (_good_bytes()[:-7], "incomplete|not fully covered|truncated"),
    (_good_bytes()[:5], "header too small"),
    (_good_bytes()[:40], "header|invalid|EOF|truncated"),
    (b"\x89PNG\r\n\x1a\n" + bytes(64), "header"),
    (b"hello, this is not a safetensors file at all", "header"),
    (b'{"a": 1}', "header"),
    (len(b'{"x": 3}').to_bytes(8, "little") + b'{"x": 3}', "header|invalid|expected"),
])
def test_bad_files_raise_invalid_parameter_naming_the_path(tmp_path, content, reason):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(content)
    with pytest.raises(InvalidParameterError, match=r"load_file: '.*bad\.safetensors' is not a "
                                                    r"readable safetensors file \((.*)\)") as info:
        ember.io.load_file(path)
    assert info.value.param == "path"
    assert str(path) in str(info.value)
    assert re.search(reason, str(info.value), re.IGNORECASE), str(info.value)
    assert path.read_bytes() == content


def test_bad_metadata_file(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"")
    with pytest.raises(InvalidParameterError, match="load_metadata: .*bad.safetensors.*empty"):
        ember.io.load_metadata(path)
    path.write_bytes(b"not safetensors at all, sorry")
    with pytest.raises(InvalidParameterError, match="load_metadata: .*not a readable"):
        ember.io.load_metadata(path)


def test_bad_bytes():
    with pytest.raises(InvalidParameterError, match=r"load: data is not a readable safetensors"):
        ember.io.load(b"12345678")
    with pytest.raises(InvalidParameterError, match="load: data must be bytes, got str"):
        ember.io.load("abc")


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        ember.io.load_file(tmp_path / "missing.safetensors")
    with pytest.raises(InvalidParameterError, match="load_file: path .* is a folder"):
        ember.io.load_file(tmp_path)
    with pytest.raises(InvalidParameterError, match="save_file: path .* is a folder"):
        ember.io.save_file({"x": ember.ones(1)}, tmp_path)
    with pytest.raises(FileNotFoundError, match="save_file: folder .*nowhere.* does not exist"):
        ember.io.save_file({"x": ember.ones(1)}, tmp_path / "nowhere" / "x.safetensors")
    assert _files(tmp_path) == []


def test_unsupported_dtype_in_a_foreign_file(tmp_path):
    path = str(tmp_path / "f8.safetensors")
    st_torch.save_file({"q": torch.zeros(3, dtype=torch.float8_e4m3fn)}, path)
    with pytest.raises(KindError, match=r"load_file: tensor 'q' in .*f8.safetensors.* has "
                                        r"safetensors dtype F8_E4M3"):
        ember.io.load_file(path)


@pytest.mark.parametrize("tensors,metadata,match", [
    ([ember.ones(1)], None, "tensors must be a dict of name -> Tensor, got list"),
    ({1: ember.ones(1)}, None, "tensor name 1 is of type int; expected a str"),
    ({"a": [1.0, 2.0]}, None, r"tensors\['a'\] is a list; expected an ember Tensor"),
    ({"a": torch.ones(1)}, None, r"tensors\['a'\] is a Tensor; expected an ember"),
    ({"__metadata__": ember.ones(1)}, None, "'__metadata__' is reserved"),
    ({"a": ember.ones(1)}, {"epochs": 3}, "metadata must be a dict of str -> str"),
    ({"a": ember.ones(1)}, "x", "metadata must be a dict"),
])
def test_bad_save_arguments(tmp_path, tensors, metadata, match):
    error = InvalidParameterError
    path = tmp_path / "out.safetensors"
    snapshot = list(tensors.items()) if isinstance(tensors, dict) else list(tensors)
    with pytest.raises(error, match="save_file: " + match):
        ember.io.save_file(tensors, path, metadata=metadata)
    assert not path.exists() and _files(tmp_path) == []
    after = list(tensors.items()) if isinstance(tensors, dict) else list(tensors)
    assert len(after) == len(snapshot) and all(
        (a[0] == b[0] and a[1] is b[1]) if isinstance(a, tuple) else a is b
        for a, b in zip(after, snapshot))
    with pytest.raises(error, match="save: " + match):
        ember.io.save(tensors, metadata=metadata)


def test_bad_path_type(tmp_path):
    with pytest.raises(InvalidParameterError, match="save_file: path must be a str or "
                                                    "os.PathLike, got int"):
        ember.io.save_file({"a": ember.ones(1)}, 3)
    with pytest.raises(InvalidParameterError, match="load_file: path must be a str"):
        ember.io.load_file(None)


# -- atomic saving --------------------------------------------------------------------------------

def _good_file(tmp_path):
    path = tmp_path / "model.safetensors"
    ember.io.save_file({"w": ember.tensor([1.0, 2.0, 3.0])}, path, metadata={"v": "1"})
    return path, path.read_bytes()


def test_a_tensor_that_cannot_be_serialized_leaves_the_old_file(tmp_path):
    path, before = _good_file(tmp_path)
    with pytest.raises(InvalidParameterError, match=r"tensors\['bad'\] is a str"):
        ember.io.save_file({"w": ember.zeros(3), "bad": "not a tensor"}, path)
    assert path.read_bytes() == before
    assert _files(tmp_path) == ["model.safetensors"]


@pytest.mark.parametrize("where", ["serialize", "write", "fsync", "replace"])
def test_failure_mid_save_leaves_the_old_file(tmp_path, monkeypatch, where):
    path, before = _good_file(tmp_path)

    def boom(*args, **kwargs):
        raise OSError(f"simulated failure in {where}")

    if where == "serialize":
        import safetensors
        monkeypatch.setattr(safetensors, "serialize", boom)
    elif where == "write":
        import io as _pyio
        real_write = _pyio.BufferedWriter.write

        class Half:
            """A file object that writes half the bytes, then fails."""

            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, data):
                real_write(self.f, data[:len(data) // 2])
                raise OSError("simulated failure in write: disk full")

        real_fdopen = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda fd, mode: Half(real_fdopen(fd, mode)))
    elif where == "fsync":
        monkeypatch.setattr(os, "fsync", boom)
    else:
        monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(Exception, match="simulated failure"):
        ember.io.save_file({"w": ember.zeros(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert ember.io.load_file(path)["w"].tolist() == [1.0, 2.0, 3.0]
    assert _files(tmp_path) == ["model.safetensors"]


def test_interrupted_save_of_a_new_file_leaves_nothing(tmp_path, monkeypatch):
    def boom(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(KeyboardInterrupt):
        ember.io.save_file({"w": ember.zeros(3)}, tmp_path / "new.safetensors")
    monkeypatch.undo()
    assert _files(tmp_path) == []

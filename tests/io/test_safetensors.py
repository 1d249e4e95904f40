"""Tests of ember.io (safetensors files): round trips of every dtype, PyTorch interop under
PyTorch's names, metadata, bad files, and atomic saving."""

import json
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
from oracle import TORCH_DTYPES, assert_close, layouts, on_device, random_array, to_torch

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
    if not on_device(["bfloat16"]):
        del tensors["c"]
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


# -- paths that are not regular files ------------------------------------------------------------

def _save_one(path):
    ember.io.save_file({"x": ember.ones(2)}, path)


READERS = [ember.io.load_file, ember.io.load_metadata]


@pytest.mark.parametrize("bad,match", [
    ("", r"path is empty; expected a file path"),
    ("a\0b.safetensors", r"path 'a\\x00b.safetensors' contains a NUL byte"),
])
def test_empty_and_nul_paths_raise_before_anything_is_created(tmp_path, monkeypatch, bad, match):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for fn, op in [(_save_one, "save_file")] + [(f, f.__name__) for f in READERS]:
        with pytest.raises(InvalidParameterError, match=f"{op}: {match}") as info:
            fn(bad)
        assert info.value.param == "path"
    assert _files(work) == [] and _files(tmp_path) == ["work"]


def _with_timeout(fn, seconds=10):
    """Run ``fn`` in a thread; the exception it raised, or a failure if it still runs after
    ``seconds`` (then ``fn`` is stuck opening a FIFO: a writer is opened to unstick it)."""
    import threading
    out = {}

    def run():
        try:
            fn()
        except BaseException as exc:  # noqa: B902 - handed to the test
            out["exc"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    return t.is_alive(), out.get("exc")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    for fn, op in [(f, f.__name__) for f in READERS] + [(_save_one, "save_file")]:
        stuck, exc = _with_timeout(lambda: fn(fifo))
        if stuck:  # the open blocks until a writer comes: come, so that the thread ends
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        assert not stuck, f"{op} blocked on a FIFO"
        assert isinstance(exc, InvalidParameterError), exc
        assert re.search(rf"{op}: path '.*pipe\.safetensors' is a FIFO \(named pipe\); "
                         r"expected", str(exc)), str(exc)
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the FIFO, not replaced by a file
    assert _files(tmp_path) == ["pipe.safetensors"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_promptly(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    for fn in READERS:
        stuck, exc = _with_timeout(lambda: fn(device))
        assert not stuck
        assert isinstance(exc, InvalidParameterError), exc
        assert f"path '{device}' is a character device; expected a safetensors file" in str(exc)
    with pytest.raises(InvalidParameterError, match="save_file: path '/dev/null' is a character"):
        _save_one("/dev/null")


def test_a_folder_or_a_trailing_separator_is_refused(tmp_path):
    (tmp_path / "sub").mkdir()
    link = tmp_path / "to_sub"
    link.symlink_to(tmp_path / "sub")
    for p in (tmp_path / "sub", link):
        with pytest.raises(InvalidParameterError, match=r"save_file: path .* is a folder"):
            _save_one(p)
        with pytest.raises(InvalidParameterError, match=r"load_file: path .* is a folder"):
            ember.io.load_file(p)
    with pytest.raises(InvalidParameterError, match=r"save_file: path .* ends with a separator"):
        _save_one(str(tmp_path / "new") + os.sep)
    assert _files(tmp_path) == ["sub", "to_sub"] and _files(tmp_path / "sub") == []


def test_a_symlink_loop_is_refused(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for fn, op in [(_save_one, "save_file")] + [(f, f.__name__) for f in READERS]:
        with pytest.raises(InvalidParameterError, match=rf"{op}: path '.*a' cannot be used"):
            fn(tmp_path / "a")
    assert _files(tmp_path) == ["a", "b"]


def test_saving_to_a_symlink_writes_through_to_its_target(tmp_path):
    """As ``torch.save`` (and ``open``): the link stays a link, its target gets the bytes."""
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "model.safetensors"
    ember.io.save_file({"x": ember.zeros(3)}, target)
    link = tmp_path / "latest.safetensors"
    link.symlink_to(target)
    torch_link = tmp_path / "torch.pt"
    torch_link.symlink_to(tmp_path / "real" / "torch_target.pt")  # dangling: open creates it
    torch.save(torch.ones(1), torch_link)
    assert torch_link.is_symlink() and (tmp_path / "real" / "torch_target.pt").is_file()
    ember.io.save_file({"x": ember.tensor([1.0, 2.0, 3.0])}, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert ember.io.load_file(target)["x"].tolist() == [1.0, 2.0, 3.0]
    assert ember.io.load_file(link)["x"].tolist() == [1.0, 2.0, 3.0]
    dangling = tmp_path / "next.safetensors"
    dangling.symlink_to(tmp_path / "real" / "new.safetensors")
    ember.io.save_file({"y": ember.ones(1)}, dangling)
    assert dangling.is_symlink() and ember.io.load_file(tmp_path / "real" / "new.safetensors")
    assert _files(tmp_path) == ["latest.safetensors", "next.safetensors", "real", "torch.pt"]
    assert _files(tmp_path / "real") == ["model.safetensors", "new.safetensors",
                                         "torch_target.pt"]


# -- loading reads the header first ---------------------------------------------------------------

def test_a_large_file_with_a_bad_header_is_refused_without_reading_it(tmp_path):
    """The header is checked before any tensor byte is read (``load_file`` used to read the
    whole file first: gigabytes for a bad 10-byte header)."""
    import time
    import tracemalloc
    path = tmp_path / "big.safetensors"
    with open(path, "wb") as f:
        f.write((10).to_bytes(8, "little") + b"not json!!")
        f.truncate(256 * 1024 * 1024)  # sparse: no disk used
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with pytest.raises(InvalidParameterError, match=r"load_file: .* \(invalid header"):
            ember.io.load_file(path)
        with pytest.raises(InvalidParameterError, match=r"load_metadata: .* \(invalid header"):
            ember.io.load_metadata(path)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, peak
    assert elapsed < 2.0, elapsed


def test_a_header_that_claims_more_than_the_file_is_refused_before_reading(tmp_path):
    import tracemalloc
    header = b'{"w":{"dtype":"F32","shape":[1000000000],"data_offsets":[0,4000000000]}}'
    path = tmp_path / "claims.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header + bytes(16))
    tracemalloc.start()
    try:
        with pytest.raises(InvalidParameterError, match=r"incomplete: the header names "
                                                        r"4000000000 bytes"):
            ember.io.load_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, peak


def test_loading_reads_only_the_named_ranges_and_matches_safetensors(tmp_path, rng):
    import safetensors
    import safetensors.numpy as st_numpy
    arrays = {"b": rng.standard_normal((3, 4)).astype(np.float32),
              "a": rng.integers(-5, 5, (7,)).astype(np.int16),
              "empty": np.zeros((0, 3), np.float64), "s": np.array(2.5)}
    path = str(tmp_path / "np.safetensors")
    st_numpy.save_file(arrays, path)
    loaded = ember.io.load_file(path)
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    in_header = [k for k in json.loads(raw[8:8 + n]) if k != "__metadata__"]
    assert list(loaded) == in_header and sorted(in_header) == sorted(arrays)
    assert sorted(name for name, _ in safetensors.deserialize(raw)) == sorted(loaded)
    for name, arr in arrays.items():
        got = loaded[name].numpy()
        assert got.dtype == arr.dtype and got.shape == arr.shape
        np.testing.assert_array_equal(got, arr)


@pytest.mark.parametrize("header,match", [
    (b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
     b'"v":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', "starts at byte 4, expected 8"),
    (b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', "starts at byte 4, expected 0"),
    (b'{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', "8 bytes, which do not fit"),
    (b'{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}', "shape of ints >= 0"),
    (b'{"w":{"dtype":"XYZ","shape":[2],"data_offsets":[0,8]}}', "unknown dtype 'XYZ'"),
    (b'{"w":[1, 2]}', "is not an object"),
    (b'{"__metadata__":{"a":1}}', "__metadata__ is not an object of strings"),
    (b'[1, 2]', "does not start with"),
    (b'{"w": \xff}', "not UTF-8"),
])
def test_bad_headers_are_refused_as_the_safetensors_library_refuses_them(tmp_path, header,
                                                                          match):
    import safetensors
    data = len(header).to_bytes(8, "little") + header + bytes(8)
    with pytest.raises(Exception):
        safetensors.deserialize(data)
    path = tmp_path / "h.safetensors"
    path.write_bytes(data)
    for fn in (ember.io.load_file, ember.io.load_metadata, lambda p: ember.io.load(data)):
        with pytest.raises(InvalidParameterError, match=match):
            fn(path)


# -- stale temporary files of killed saves ---------------------------------------------------------

_SAVER = r"""
import sys
import ember, ember.io
x = ember.zeros(8 * 1024 * 1024)
print("ready", flush=True)
while True:
    ember.io.save_file({"x": x}, sys.argv[1])
"""


def _temps(folder, name):
    return sorted(n for n in os.listdir(folder) if n.startswith(f".{name}.") and
                  n.endswith(".tmp"))


def _child_env():
    import ember as _ember
    root = os.path.dirname(os.path.dirname(os.path.abspath(_ember.__file__)))
    paths = [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


def _kill_mid_save(target, attempts=20, seconds=60):
    """Start a child that saves ``target`` in a loop; kill -9 it while its temporary file
    exists (retried until one is left behind); returns the names of the temporary files left."""
    import signal
    import subprocess
    import sys
    import time
    deadline = time.monotonic() + seconds
    for _ in range(attempts):
        proc = subprocess.Popen([sys.executable, "-c", _SAVER, str(target)],
                                stdout=subprocess.PIPE, env=_child_env())
        try:
            assert proc.stdout.readline().strip() == b"ready"
            while time.monotonic() < deadline:
                if _temps(target.parent, target.name):
                    os.kill(proc.pid, signal.SIGKILL)
                    break
                time.sleep(0.0005)
        finally:
            proc.kill()
            proc.wait(timeout=30)  # reaped: its pid no longer names a process
            proc.stdout.close()
        left = _temps(target.parent, target.name)
        if left or time.monotonic() >= deadline:
            return left
    return []


def test_a_save_killed_midway_leaves_a_temp_file_that_the_next_save_removes(tmp_path):
    """kill -9 during a save leaves its temporary file; the next save of the same target removes
    it, and only it: temporary files of running processes (a save in progress elsewhere, here a
    sleeping child), of other targets, or not named by ember stay."""
    import subprocess
    import sys
    target = tmp_path / "big.safetensors"
    left = _kill_mid_save(target)
    assert left, "could not kill the child during a save"
    host = left[0].split(".")[-3].split("-")[1]  # .big.safetensors.PID-HOST.XXXXXXXX.tmp
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        keep = [f".big.safetensors.{live.pid}-{host}.x1y2z3ab.tmp",
                f".big.safetensors.{os.getpid()}-{host}.abc_1234.tmp",
                ".big.safetensors.abcdefgh.tmp"]
        for name in keep:
            (tmp_path / name).write_bytes(b"in progress")
        other = f".other.safetensors.{left[0].split('.')[-3]}.abcdefgh.tmp"
        (tmp_path / other).write_bytes(b"another target's temporary file")
        ember.io.save_file({"w": ember.tensor([1.0, 2.0])}, target)
        assert _temps(tmp_path, target.name) == sorted(keep)
        assert ember.io.load_file(target)["w"].tolist() == [1.0, 2.0]
    finally:
        live.kill()
        live.wait(timeout=30)
    ember.io.save_file({"w": ember.ones(1)}, target)
    assert _temps(tmp_path, target.name) == sorted(keep[1:])
    assert _files(tmp_path) == sorted(keep[1:] + [other, "big.safetensors"])


@pytest.mark.skipif(ember.Device("torch:cpu") not in ember.devices(), reason="needs PyTorch")
@pytest.mark.parametrize("src, dst", [("cpu", "torch:cpu"), ("torch:cpu", "cpu"),
                                      ("torch:cpu", "torch:cpu")])
def test_save_from_and_load_to_a_device(tmp_path, src, dst):
    tensors = {name: ember.tensor([[1.5, -2.0], [0.0, 3.0]], device=src).cast(name)
               for name in ("float32", "bfloat16", "float16", "int8", "uint16", "uint64", "bool")}
    path = str(tmp_path / "t.safetensors")
    ember.io.save_file(tensors, path)
    for loaded in (ember.io.load_file(path, device=dst),
                   ember.io.load(ember.io.save(tensors), device=dst)):
        for name, t in tensors.items():
            assert loaded[name].device == dst and loaded[name].dtype is t.dtype
            assert loaded[name].tolist() == t.tolist()
    with ember.Device(dst):
        assert ember.io.load_file(path)["int8"].device == dst  # None: the default device
    with pytest.raises(ember.InvalidParameterError, match="load_file: device: 'tpu'"):
        ember.io.load_file(path, device="tpu")

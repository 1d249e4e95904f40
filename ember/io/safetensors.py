"""Tensors to and from safetensors files (the format of Hugging Face's ``safetensors``).

``save_file(tensors, path, metadata=None)`` writes a dict of named ember tensors;
``load_file(path)`` reads one back as a dict. Every ember dtype round-trips (float64, float32,
float16, bfloat16, the signed and unsigned ints, bool), and the files are the ones
``safetensors.torch`` reads and writes, so a model's ``state_dict()`` travels to and from
PyTorch under PyTorch's names (``"0.weight"``, ``"conv1.bias"``, ...).

Saving is atomic: the bytes go to a temporary file in the same folder, which is flushed,
synced and then renamed over ``path``, so a failed save leaves any earlier file untouched.
A file that is empty, truncated or not a safetensors file raises ``InvalidParameterError``
naming the path; a missing file raises ``FileNotFoundError``, as ``open`` does.
"""

import os
import tempfile

from .. import dtypes as _dt
from ..backends import default as be
from ..errors import InvalidParameterError, KindError
from ..tensor import Tensor, wrap

__all__ = ["save_file", "load_file", "save", "load", "load_metadata"]

_CODES = {
    "float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
    "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8",
    "uint64": "U64", "uint32": "U32", "uint16": "U16", "uint8": "U8", "bool": "BOOL",
}
_DTYPES = {code: _dt.as_dtype(name) for name, code in _CODES.items()}


def _safetensors():
    try:
        import safetensors
    except ImportError:  # pragma: no cover - the training extras install it
        raise ImportError("ember.io needs the 'safetensors' package: pip install safetensors "
                          "(python3 dev.py run installs it)") from None
    return safetensors


def _check_tensors(tensors, op):
    if not isinstance(tensors, dict):
        raise InvalidParameterError(
            f"{op}: tensors must be a dict of name -> Tensor, got {type(tensors).__name__}",
            "tensors", type(tensors).__name__)
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise InvalidParameterError(f"{op}: tensor name {name!r} is of type "
                                        f"{type(name).__name__}; expected a str", "tensors", name)
        if name == "__metadata__":
            raise InvalidParameterError(f"{op}: '__metadata__' is reserved by the safetensors "
                                        "format; expected another tensor name", "tensors", name)
        if not isinstance(t, Tensor):
            raise InvalidParameterError(f"{op}: tensors[{name!r}] is a {type(t).__name__}; "
                                        "expected an ember Tensor", "tensors", name)
        if t.dtype.name not in _CODES:  # pragma: no cover - every ember dtype has a code
            raise KindError(f"{op}: tensors[{name!r}] has dtype {t.dtype.name}, which "
                            "safetensors cannot store")


def _check_metadata(metadata, op):
    if metadata is None:
        return None
    if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise InvalidParameterError(f"{op}: metadata must be a dict of str -> str, got "
                                    f"{metadata!r}", "metadata", metadata)
    return dict(metadata)


def _check_path(path, op):
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"{op}: path must be a str or os.PathLike, got "
                                    f"{type(path).__name__} {path!r}", "path", path)
    return os.fspath(path)


def save(tensors, metadata=None):
    """The safetensors bytes of a dict of named tensors (``metadata``: a dict of str -> str).

    >>> import ember, ember.io
    >>> data = ember.io.save({"w": ember.tensor([1.0, 2.0])})
    >>> ember.io.load(data)["w"].tolist()
    [1.0, 2.0]
    """
    op = "save"
    _check_tensors(tensors, op)
    metadata = _check_metadata(metadata, op)
    return _serialize(tensors, metadata)


def _serialize(tensors, metadata):
    st = _safetensors()
    keep, specs = [], {}
    for name, t in tensors.items():
        arr, address, nbytes = be.io_buffer(t._data)
        keep.append(arr)  # the serializer reads through raw addresses: keep the arrays alive
        specs[name] = st.TensorSpec(dtype=t.dtype.name, shape=list(t.shape), data_ptr=address,
                                    data_len=nbytes)
    try:
        data = st.serialize(specs, metadata=metadata)
    except Exception as exc:  # SafetensorError; the checks above should leave none
        raise InvalidParameterError(f"save: safetensors refused the tensors: {exc}", "tensors",
                                    list(tensors)) from None
    del keep
    return bytes(data)


def save_file(tensors, path, metadata=None):
    """Write a dict of named tensors to ``path`` as a safetensors file, atomically.

    ``metadata`` (a dict of str -> str) goes into the file's header. An existing file at
    ``path`` is replaced only once the new one is complete on disk.

    >>> import ember, ember.io, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
    >>> ember.io.save_file({"weight": ember.ones(2, 3), "step": ember.tensor(7)}, path)
    >>> loaded = ember.io.load_file(path)
    >>> loaded["weight"].shape, loaded["step"].item()
    ((2, 3), 7)
    """
    op = "save_file"
    path = _check_path(path, op)
    _check_tensors(tensors, op)
    metadata = _check_metadata(metadata, op)
    if os.path.isdir(path):
        raise InvalidParameterError(f"{op}: path {path!r} is a folder; expected a file path",
                                    "path", path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{op}: folder {folder!r} of path {path!r} does not exist")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_serialize(tensors, metadata))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)


def _file_mode(path):
    """The mode the saved file gets: the old file's, else what ``open`` would give (umask)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_folder(folder):
    """Make the rename durable (POSIX); harmless where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _bad_file(op, path, reason):
    where = f"{path!r}" if path is not None else "data"
    return InvalidParameterError(f"{op}: {where} is not a readable safetensors file ({reason})",
                                 "path" if path is not None else "data", path)


def _reason(exc):
    text = str(exc).strip()
    for prefix in ("Error while deserializing header: ", "Error while deserializing: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text or type(exc).__name__


def _deserialize(data, op, path):
    st = _safetensors()
    if len(data) == 0:
        raise _bad_file(op, path, "it is empty")
    try:
        entries = st.deserialize(data)
    except Exception as exc:  # safetensors raises SafetensorError (a plain Exception)
        raise _bad_file(op, path, _reason(exc)) from None
    out = {}
    for name, info in entries:
        code, shape = info["dtype"], tuple(info["shape"])
        dtype = _DTYPES.get(code)
        if dtype is None:
            raise KindError(f"{op}: tensor {name!r} in {path if path is not None else 'data'!r} "
                            f"has safetensors dtype {code}, which ember has no dtype for; "
                            f"expected one of {', '.join(_DTYPES)}")
        arr = be.io_from_buffer(info["data"], dtype.np, shape)
        if arr is None:
            raise _bad_file(op, path, f"tensor {name!r} has {len(info['data'])} bytes, which do "
                                      f"not fit shape {shape} of {code}")
        out[name] = wrap(arr, dtype)
    return out


def load(data):
    """The dict of named tensors in safetensors bytes ``data`` (bytes or bytearray).

    >>> import ember, ember.io
    >>> ember.io.load(ember.io.save({"n": ember.tensor([3], dtype="uint8")}))["n"].dtype
    ember.uint8
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidParameterError(f"load: data must be bytes, got {type(data).__name__}",
                                    "data", type(data).__name__)
    return _deserialize(bytes(data), "load", None)


def load_file(path):
    """The dict of named tensors stored in the safetensors file at ``path``.

    Tensors come back with their dtypes and shapes, in the file's order of names.

    >>> import ember, ember.io, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.safetensors")
    >>> ember.io.save_file({"mask": ember.tensor([True, False])}, path)
    >>> ember.io.load_file(path)["mask"].tolist()
    [True, False]
    """
    op = "load_file"
    path = _check_path(path, op)
    if os.path.isdir(path):
        raise InvalidParameterError(f"{op}: path {path!r} is a folder; expected a safetensors "
                                    "file", "path", path)
    with open(path, "rb") as f:
        data = f.read()
    return _deserialize(data, op, path)


def load_metadata(path):
    """The metadata dict (str -> str) in the header of the safetensors file at ``path``
    (empty when the file has none).

    >>> import ember, ember.io, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.safetensors")
    >>> ember.io.save_file({"x": ember.zeros(1)}, path, metadata={"epochs": "3"})
    >>> ember.io.load_metadata(path)
    {'epochs': '3'}
    """
    op = "load_metadata"
    path = _check_path(path, op)
    if os.path.isdir(path):
        raise InvalidParameterError(f"{op}: path {path!r} is a folder; expected a safetensors "
                                    "file", "path", path)
    st = _safetensors()
    size = os.path.getsize(path)
    if size == 0:
        raise _bad_file(op, path, "it is empty")
    try:
        with st.safe_open(path, framework="numpy") as f:
            meta = f.metadata()
    except Exception as exc:
        raise _bad_file(op, path, _reason(exc)) from None
    return dict(meta or {})

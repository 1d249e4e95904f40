"""Tensors to and from safetensors files (the format of Hugging Face's ``safetensors``).

``save_file(tensors, path, metadata=None)`` writes a dict of named ember tensors;
``load_file(path)`` reads one back as a dict. Every ember dtype round-trips (float64, float32,
float16, bfloat16, the signed and unsigned ints, bool; complex tensors raise KindError, as
safetensors has no complex dtype ember writes), and the files are the ones
``safetensors.torch`` reads and writes, so a model's ``state_dict()`` travels to and from
PyTorch under PyTorch's names (``"0.weight"``, ``"conv1.bias"``, ...).

Saving is atomic: the bytes go to a temporary file ``.NAME.PID-HOST.XXXXXXXX.tmp`` in the
same folder, which is flushed, synced and then renamed over ``path``, so a failed save leaves
any earlier file untouched. A save killed before the rename (``kill -9``, power loss) leaves its
temporary file; the next save of the same target removes those whose process no longer runs.
A symbolic link is written through to its target, as ``open`` and ``torch.save`` do.

Loading reads and checks the header first, then only the byte ranges it names, so a bad or
foreign file costs a few bytes of reading. A file that is empty, truncated or not a safetensors
file raises ``InvalidParameterError`` naming the path; so does a path that is a folder, a FIFO,
a device or a socket (checked before anything is opened for reading or created), an empty path
or one with a NUL byte. A missing file raises ``FileNotFoundError``, as ``open`` does.
"""

import errno
import json
import os
import re
import socket
import stat
import tempfile
import zlib

from .. import dtypes as _dt
from ..devices import CPU, as_device
from ..errors import InvalidParameterError, KindError
from ..shapes import MAX_RANK
from .._tensor import Tensor, transfer, wrap
from .json_depth import nesting_within

_host = CPU.backend  # files are read and written through host memory

__all__ = ["save_file", "load_file", "save", "load", "load_metadata"]

_CODES = {
    "float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
    "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8",
    "uint64": "U64", "uint32": "U32", "uint16": "U16", "uint8": "U8", "bool": "BOOL",
}
_DTYPES = {code: _dt.as_dtype(name) for name, code in _CODES.items()}
# safetensors dtypes that ember does not read (C64: ember writes no complex tensors, so it reads
# none either, docs/complex.md): a file using one is valid, ember refuses it
_FOREIGN = ("F4", "F6_E2M3", "F6_E3M2", "F8_E5M2", "F8_E4M3", "F8_E8M0", "C64")
_MAX_HEADER = 100_000_000  # the safetensors limit on the header's length
_MAX_DEPTH = 64  # how deep a header's arrays and objects may nest (a plain header nests 3)
_MAX_BYTES = 2 ** 63 - 1  # no tensor (nor a shape with a 0) spans more, as in NumPy


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
        if t.dtype.name not in _CODES:  # the complex dtypes (docs/complex.md)
            raise KindError(f"{op}: tensors[{name!r}] has dtype {t.dtype.name}, which "
                            "safetensors cannot store; expected a bool, int or float tensor "
                            "(save the .real() and .imag() parts of a complex tensor)")


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
    path = os.fspath(path)
    if not isinstance(path, str):  # an os.PathLike whose __fspath__ gives bytes
        raise InvalidParameterError(f"{op}: path must name a str path, got "
                                    f"{type(path).__name__} {path!r}", "path", path)
    if not path:
        raise InvalidParameterError(f"{op}: path is empty; expected a file path", "path", path)
    if "\0" in path:
        raise InvalidParameterError(f"{op}: path {path!r} contains a NUL byte; expected a file "
                                    "path without one", "path", path)
    return path


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def _check_regular(mode, path, op, expected):
    """Refuse a file that is not a regular file (``mode`` from ``stat``), naming what it is."""
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise InvalidParameterError(f"{op}: path {path!r} is {kind}; expected {expected}", "path",
                                path)


def _stat_or_none(path, op, shown=None):
    """``os.stat(path)`` (following links), None when nothing is there; a link loop or a name
    too long raises InvalidParameterError naming ``shown`` (the user's path), permissions the
    usual OSError."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except (PermissionError, NotADirectoryError):
        raise
    except OSError as exc:
        shown = path if shown is None else shown
        raise InvalidParameterError(f"{op}: path {shown!r} cannot be used ({exc.strerror}); "
                                    "expected a file path", "path", shown) from None


def _open_for_reading(path, op):
    """A raw binary file object of the regular file at ``path`` and its size. Other kinds of
    file are refused before they are opened, and again after (``O_NONBLOCK``: a FIFO put there
    in between cannot block the open)."""
    st = _stat_or_none(path, op)
    if st is None:
        raise FileNotFoundError(errno.ENOENT, f"{op}: no such file", path)
    expected = "a safetensors file"
    _check_regular(st.st_mode, path, op, expected)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | \
        getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        _check_regular(st.st_mode, path, op, expected)
        return os.fdopen(fd, "rb", buffering=0), st.st_size
    except BaseException:
        os.close(fd)
        raise


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
        data, device = t._data, t._device
        if device is not CPU:  # from any device through host memory
            data = transfer(data, t._dtype, device, CPU)
        arr, address, nbytes = _host.io_buffer(data)
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
    ``path`` is replaced only once the new one is complete on disk; a symbolic link keeps
    pointing at its target, which gets the new bytes. Temporary files left by earlier saves of
    the same target that were killed are removed. A path that is a folder, a FIFO, a device, an
    empty string or holds a NUL byte raises InvalidParameterError before anything is created.

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
    target = _save_target(path, op)
    folder, name = os.path.split(target)
    _remove_stale_temps(folder, name)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.{_owner()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_serialize(tensors, metadata))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_folder(folder)


def _save_target(path, op):
    """The file that saving to ``path`` replaces: ``path`` with symbolic links followed (the
    link stays, its target gets the new bytes), checked to be a regular file or nothing, in an
    existing folder."""
    if not os.path.basename(path):
        raise InvalidParameterError(f"{op}: path {path!r} ends with a separator; expected a "
                                    "file path", "path", path)
    target = os.path.realpath(path)
    st = _stat_or_none(target, op, path)
    if st is not None:
        _check_regular(st.st_mode, path, op, "a file path")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{op}: folder {folder!r} of path {path!r} does not exist")
    return target


_HOST = format(zlib.crc32(socket.gethostname().encode("utf-8", "replace")), "08x")
_TEMP_OWNER = re.compile(r"(\d+)-([0-9a-f]{8})\.[A-Za-z0-9_]+\.tmp")


def _owner():
    """The middle of this process's temporary file names: ``PID-HOST`` (HOST a hash of the
    host name, so that a folder shared between machines is cleaned only by its own machine)."""
    return f"{os.getpid()}-{_HOST}"


def _remove_stale_temps(folder, name):
    """Remove the temporary files that interrupted saves of ``folder/name`` left behind: those
    of this host whose process no longer runs. Those of running processes (a save in progress
    elsewhere) stay, and so does anything that is not such a regular file."""
    if os.name != "posix":  # pragma: no cover - no cheap, harmless liveness check elsewhere
        return
    prefix = f".{name}."
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    me = os.getpid()
    for entry in entries:
        match = entry.name.startswith(prefix) and _TEMP_OWNER.fullmatch(entry.name, len(prefix))
        if not match or match.group(2) != _HOST:
            continue
        pid = int(match.group(1))
        try:
            if pid == me or _running(pid) or not entry.is_file(follow_symlinks=False):
                continue
            os.unlink(entry.path)
        except OSError:  # gone already, or not ours to remove
            pass


def _running(pid):
    """Whether process ``pid`` exists (a zombie counts: its parent has not reaped it yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):  # another user's process; a pid out of range
        return True
    return True


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


def _header_length(first8, size, op, path):
    """The header's length from the file's first 8 bytes, checked against ``size`` bytes."""
    if size == 0:
        raise _bad_file(op, path, "it is empty")
    if size < 8:
        raise _bad_file(op, path, f"header too small: {size} bytes, expected at least 8")
    n = int.from_bytes(first8, "little")
    if n > _MAX_HEADER:
        raise _bad_file(op, path, f"header too large: {n} bytes, expected at most {_MAX_HEADER}")
    if 8 + n > size:
        raise _bad_file(op, path, f"invalid header length {n}: only {size - 8} bytes follow; "
                                  "the file is truncated or not a safetensors file")
    return n


def _parse_header(head, data_len, op, path):
    """``(entries, metadata)`` of a safetensors header (bytes): entries ``(name, dtype, shape,
    begin, end)`` in the header's order, their byte ranges checked to tile the ``data_len``
    bytes of tensor data exactly, as the safetensors library requires."""
    head = bytes(head)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad_file(op, path, "the header is not UTF-8 text") from None
    if not text.startswith("{"):
        raise _bad_file(op, path, "invalid header: it does not start with '{'")
    if not nesting_within(head, _MAX_DEPTH):
        raise _bad_file(op, path, "invalid header: its arrays and objects nest more than "
                                  f"{_MAX_DEPTH} deep")
    try:
        header = json.loads(text)
    except ValueError as exc:
        raise _bad_file(op, path, f"invalid header: not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise _bad_file(op, path, "invalid header: expected a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(v, str) for v in metadata.values())):
        raise _bad_file(op, path, "invalid header: __metadata__ is not an object of strings")
    entries = []
    for name, info in header.items():
        entries.append(_parse_entry(name, info, op, path))
    end = 0
    for e in sorted(entries, key=lambda e: (e[3], e[4])):
        if e[3] != end:
            raise _bad_file(op, path, f"invalid header: tensor {e[0]!r} starts at byte {e[3]}, "
                                      f"expected {end} (the tensors' bytes must follow each "
                                      "other without gaps or overlaps)")
        end = e[4]
    if end != data_len:
        raise _bad_file(op, path, f"incomplete: the header names {end} bytes of tensor data, "
                                  f"the file has {data_len}; it is truncated or damaged")
    return entries, dict(metadata or {})


def _natural(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _parse_entry(name, info, op, path):
    where = f"{path!r}" if path is not None else "data"
    if not isinstance(info, dict):
        raise _bad_file(op, path, f"invalid header: the entry of tensor {name!r} is not an object")
    code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(code, str) or not isinstance(shape, list) or \
            not all(_natural(s) for s in shape) or not isinstance(offsets, list) or \
            len(offsets) != 2 or not all(_natural(o) for o in offsets):
        raise _bad_file(op, path, f"invalid header: tensor {name!r} needs a dtype string, a "
                                  "shape of ints >= 0 and two data_offsets ints >= 0")
    dtype = _DTYPES.get(code)
    if dtype is None:
        if code in _FOREIGN:
            raise KindError(f"{op}: tensor {name!r} in {where} has safetensors dtype {code}, "
                            f"which ember does not read; expected one of {', '.join(_DTYPES)}")
        raise _bad_file(op, path, f"invalid header: tensor {name!r} has unknown dtype {code!r}")
    if len(shape) > MAX_RANK:
        raise _bad_file(op, path, f"invalid header: tensor {name!r} has {len(shape)} dims; a "
                                  f"tensor has at most {MAX_RANK}")
    span = dtype.itemsize  # the bytes its dims other than 0 span
    for s in shape:
        span *= s or 1
    if span > _MAX_BYTES:
        raise _bad_file(op, path, f"invalid header: tensor {name!r} has shape {tuple(shape)}, "
                                  f"too large for a tensor of {code} (its dims other than 0 "
                                  "span more than 2**63 - 1 bytes)")
    begin, end = offsets
    count = 1
    for s in shape:
        count *= s
    if end < begin or end - begin != count * dtype.itemsize:
        raise _bad_file(op, path, f"tensor {name!r} has {end - begin} bytes, which do not fit "
                                  f"shape {tuple(shape)} of {code}")
    return name, dtype, tuple(shape), begin, end


def _tensor(buf, name, dtype, shape, op, path, device=CPU):
    arr = _host.io_from_buffer(buf, dtype, shape)
    if arr is None:  # pragma: no cover - the header's checks make the sizes fit
        raise _bad_file(op, path, f"tensor {name!r} does not fit its shape {shape}")
    if device is not CPU:
        arr = transfer(arr, dtype, CPU, device)
    return wrap(arr, dtype)


def _deserialize(data, op, path, device=CPU):
    """The tensors in safetensors bytes ``data`` (each a copy of its bytes) on ``device``."""
    view = memoryview(data)
    n = _header_length(bytes(view[:8]), len(view), op, path)
    entries, _ = _parse_header(view[8:8 + n], len(view) - 8 - n, op, path)
    base = 8 + n
    return {name: _tensor(bytearray(view[base + b:base + e]), name, dtype, shape, op, path,
                          device)
            for name, dtype, shape, b, e in entries}


def _read_exact(f, buf, op, path):
    """Fill ``buf`` (a bytearray or memoryview) from raw file ``f``; a short file is a bad one."""
    view = memoryview(buf)
    got = 0
    while got < len(view):
        k = f.readinto(view[got:])
        if not k:
            raise _bad_file(op, path, "truncated: the file ended while reading it (did it "
                                      "change during the load?)")
        got += k
    return buf


def _read_header(f, size, op, path):
    """``(entries, metadata, data_start)`` of the open file ``f`` of ``size`` bytes, reading
    only the header."""
    first8 = _read_exact(f, bytearray(min(size, 8)), op, path) if size else b""
    n = _header_length(bytes(first8), size, op, path)
    head = _read_exact(f, bytearray(n), op, path)
    entries, metadata = _parse_header(head, size - 8 - n, op, path)
    return entries, metadata, 8 + n


def load(data, device=None):
    """The dict of named tensors in safetensors bytes ``data`` (bytes or bytearray), on
    ``device`` (None: the default device).

    >>> import ember, ember.io
    >>> ember.io.load(ember.io.save({"n": ember.tensor([3], dtype="uint8")}))["n"].dtype
    ember.uint8
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidParameterError(f"load: data must be bytes, got {type(data).__name__}",
                                    "data", type(data).__name__)
    device = as_device(device, "load")
    return _deserialize(bytes(data), "load", None, device)


def load_file(path, device=None):
    """The dict of named tensors stored in the safetensors file at ``path``, on ``device``
    (None: the default device; the bytes go through host memory).

    Tensors come back with their dtypes and shapes, in the order of the file's header. The
    header is read and checked first, then only the byte ranges it names; a path that is not a
    regular file (a folder, a FIFO, a device) raises InvalidParameterError without being read.

    >>> import ember, ember.io, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.safetensors")
    >>> ember.io.save_file({"mask": ember.tensor([True, False])}, path)
    >>> ember.io.load_file(path)["mask"].tolist()
    [True, False]
    """
    op = "load_file"
    path = _check_path(path, op)
    device = as_device(device, op)
    f, size = _open_for_reading(path, op)
    with f:
        entries, _, start = _read_header(f, size, op, path)
        arrays = {}
        for name, dtype, shape, begin, end in sorted(entries, key=lambda e: e[3]):
            f.seek(start + begin)  # in file order: one forward pass over the data
            arrays[name] = _read_exact(f, bytearray(end - begin), op, path)
    return {name: _tensor(arrays[name], name, dtype, shape, op, path, device)
            for name, dtype, shape, _, _ in entries}


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
    f, size = _open_for_reading(path, op)
    with f:
        return _read_header(f, size, op, path)[1]

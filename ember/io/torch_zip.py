"""The container of PyTorch's checkpoints: the zip archive ``torch.save`` writes (PyTorch 1.6+).

An archive keeps its records in one folder: ``data.pkl`` (the pickled object), ``data/<key>``
(the raw bytes of each storage), ``byteorder``, ``version`` and ``.data/serialization_id``.
Records are stored uncompressed, and ``ArchiveWriter`` starts each one's bytes at a multiple of
64 bytes (padding in the local header's extra field), as PyTorch's own writer does.

``ArchiveReader`` trusts nothing in the file: every record must lie in the archive's folder, be
stored uncompressed and fit in the file (so no record is larger than the file: no zip bombs),
and any damage -- not a zip, truncated, a bad CRC -- raises InvalidParameterError naming the
file, never a zipfile exception.

>>> import io
>>> buf = io.BytesIO()
>>> with ArchiveWriter(buf) as w:
...     w.write("data.pkl", b"...")
>>> ArchiveReader(buf, "buf").read("data.pkl")
b'...'
"""

import contextlib
import io
import os
import secrets
import struct
import tempfile
import zipfile

from ..errors import EmberError, InvalidParameterError
from .safetensors import (_check_path, _check_regular, _file_mode, _owner, _remove_stale_temps,
                          _save_target, _stat_or_none, _sync_folder)

__all__ = ["ArchiveWriter", "ArchiveReader", "ZIP_MAGIC", "save_archive", "opened"]

ZIP_MAGIC = b"PK\x03\x04"
_ALIGN = 64  # where storages start, as in PyTorch's writer
_FOLDER = "archive"
_VERSION = b"3\n"  # the file format version PyTorch writes
_DATE = (1980, 1, 1, 0, 0, 0)  # the same bytes for the same object


class ArchiveWriter:
    """Writes the records of one archive to the binary file object ``f``; ``close`` (or the end
    of a ``with`` block) adds ``version`` and ``.data/serialization_id`` and the zip directory."""

    def __init__(self, f):
        self._zip = zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True)

    def write(self, name, data):
        """Add the record ``name`` holding the bytes of ``data`` (any buffer), 64-byte aligned."""
        view = memoryview(data).cast("B")
        info = zipfile.ZipInfo(f"{_FOLDER}/{name}", date_time=_DATE)
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = view.nbytes
        zip64 = view.nbytes * 1.05 > zipfile.ZIP64_LIMIT  # as zipfile decides
        z = self._zip
        start = z.start_dir if z._seekable else z.fp.tell()
        # local header: 30 bytes, the name, our extra field (4 bytes + padding), zip64's 20 bytes
        fixed = 30 + len(info.filename.encode("ascii")) + 4 + (20 if zip64 else 0)
        pad = -(start + fixed) % _ALIGN
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        with z.open(info, "w", force_zip64=zip64) as out:
            out.write(view)

    def close(self):
        self.write("version", _VERSION)
        self.write(".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())
        self._zip.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self.close()
        else:  # leave the partial file as it is (the caller discards it): no zip directory
            self._zip.fp = None


class ArchiveReader:
    """The records of the archive in the seekable binary file object ``f``, checked as the
    module docstring says; ``where`` names the file in error messages."""

    def __init__(self, f, where):
        self.where = where
        try:
            start = f.tell()
            end = f.seek(0, 2)
            f.seek(start)
            self.file_size = end - start
            self._zip = zipfile.ZipFile(f, "r")
            infos = self._zip.infolist()
        except EmberError:
            raise
        except Exception as exc:  # BadZipFile, struct.error, OSError, ... of a damaged file
            raise self.bad(f"it is not a readable zip archive ({_reason(exc)})") from None
        if not infos:
            raise self.bad("the zip archive holds no records")
        folder = infos[0].filename.split("/", 1)[0]  # as PyTorch: the first record's folder
        self.records = {}
        for info in infos:
            name = info.filename
            if not name.startswith(folder + "/") or name == folder + "/":
                raise self.bad(f"record {name!r} is not in the archive's folder {folder!r}")
            short = name[len(folder) + 1:]
            if short in self.records:
                raise self.bad(f"record {name!r} appears twice")
            if info.flag_bits & 0x1:
                raise self.bad(f"record {name!r} is encrypted")
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise self.bad(f"record {name!r} is compressed; torch.save stores its records "
                               "uncompressed, and ember reads only such records (their sizes "
                               "are bounded by the file's)")
            if info.header_offset + info.file_size > end:
                raise self.bad(f"record {name!r} claims {info.file_size} bytes at offset "
                               f"{info.header_offset}, beyond the file's {end} bytes; it is "
                               "truncated or damaged")
            self.records[short] = info

    def bad(self, reason):
        return InvalidParameterError(f"load: {self.where} is not a readable PyTorch checkpoint: "
                                     f"{reason}", "f", self.where)

    def has(self, name):
        return name in self.records

    def size(self, name):
        return self.records[name].file_size

    def read(self, name):
        """The bytes of record ``name`` (checked against its size and CRC)."""
        info = self.records.get(name)
        if info is None:
            raise self.bad(f"it has no record {name!r}")
        try:
            with self._zip.open(info) as r:
                data = r.read(info.file_size + 1)
        except EmberError:
            raise
        except Exception as exc:
            raise self.bad(f"record {name!r} cannot be read ({_reason(exc)})") from None
        if len(data) != info.file_size:
            raise self.bad(f"record {name!r} holds {len(data)} bytes, its header says "
                           f"{info.file_size}")
        return data


def _reason(exc):
    text = str(exc)
    text = text if len(text) <= 200 else text[:200] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def save_archive(f, records, op="save"):
    """Write an archive of ``records`` (``(name, buffer)`` pairs, in order) to ``f``: a path
    (written atomically, as ``ember.io.save_file`` writes: a temporary file in the same folder,
    synced, then renamed over the path) or a writable binary file object.

    >>> import io
    >>> buf = io.BytesIO()
    >>> save_archive(buf, [("data.pkl", b"."), ("data/0", bytes(8))])
    >>> sorted(ArchiveReader(buf, "buf").records)
    ['.data/serialization_id', 'data.pkl', 'data/0', 'version']
    """
    if _is_path(f):
        path = _check_path(f, op)
        target = _save_target(path, op)
        folder, name = os.path.split(target)
        _remove_stale_temps(folder, name)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.{_owner()}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                _write(out, records)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, _file_mode(target))
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _sync_folder(folder)
        return
    if isinstance(f, io.TextIOBase) or not callable(getattr(f, "write", None)):
        raise InvalidParameterError(f"{op}: f must be a path or a binary file object open for "
                                    f"writing ('wb'), got {type(f).__name__}", "f", f)
    _write(f, records)


def _write(f, records):
    with ArchiveWriter(f) as w:
        for name, data in records:
            w.write(name, data)


@contextlib.contextmanager
def opened(f, op="load"):
    """``(file, where, path)`` for reading ``f``: a path (a regular file; a folder or a FIFO
    raises InvalidParameterError before it is opened, a missing file FileNotFoundError) or a
    readable binary file object (read into memory first when it cannot seek). ``where`` names
    the file in messages, ``path`` is the path or None.

    >>> import io
    >>> with opened(io.BytesIO(b"PK")) as (file, where, path):
    ...     file.read(), where, path
    (b'PK', 'the BytesIO file object', None)
    """
    if _is_path(f):
        path = _check_path(f, op)
        st = _stat_or_none(path, op)
        if st is None:
            raise FileNotFoundError(2, f"{op}: no such file", path)
        _check_regular(st.st_mode, path, op, "a checkpoint file")
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | \
            getattr(os, "O_BINARY", 0)
        fd = os.open(path, flags)
        try:
            _check_regular(os.fstat(fd).st_mode, path, op, "a checkpoint file")
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, "rb") as file:
            yield file, repr(path), path
        return
    if isinstance(f, io.TextIOBase) or not callable(getattr(f, "read", None)):
        raise InvalidParameterError(f"{op}: f must be a path or a binary file object open for "
                                    f"reading ('rb'), got {type(f).__name__}", "f", f)
    where = f"the {type(f).__name__} file object"
    seekable = getattr(f, "seekable", None)
    if not (callable(seekable) and seekable()):
        data = f.read()
        if not isinstance(data, (bytes, bytearray)):
            raise InvalidParameterError(f"{op}: {where} read {type(data).__name__}, expected "
                                        "bytes (open the file in binary mode, 'rb')", "f", f)
        f = io.BytesIO(data)
    yield f, where, None

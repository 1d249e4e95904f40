"""Readers of untrusted structure are bounded: safetensors headers and ember.load structures
with impossible shapes, deep nesting or unknown tags raise InvalidParameterError naming the
file, never a raw ValueError, TypeError or RecursionError."""

import json

import pytest

import ember
import ember.io
from ember import InvalidParameterError


def _file(header, data=b""):
    head = header if isinstance(header, bytes) else json.dumps(header).encode()
    return len(head).to_bytes(8, "little") + head + data


def _entry(shape, code="F32", nbytes=0):
    return {"a": {"dtype": code, "shape": shape, "data_offsets": [0, nbytes]}}


def _readers(tmp_path, data):
    """Every reader of a safetensors header, each as a function of nothing."""
    path = tmp_path / "x.safetensors"
    path.write_bytes(data)
    return {"load_file": lambda: ember.io.load_file(path),
            "load_metadata": lambda: ember.io.load_metadata(path),
            "load": lambda: ember.io.load(data),
            "ember.load": lambda: ember.load(path)}


def _refused(tmp_path, data, match):
    for name, read in _readers(tmp_path, data).items():
        with pytest.raises(InvalidParameterError, match=match) as info:
            read()
        assert "not a readable safetensors file" in str(info.value), name


# -- shapes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,code,match", [
    ([0, 2 ** 70], "F32", r"shape \(0, 1180591620717411303424\), too large for a tensor of F32"),
    ([2 ** 70, 0], "U8", r"too large for a tensor of U8"),
    ([0, 2 ** 31, 2 ** 31], "F32", r"dims other than 0 span more than 2\*\*63 - 1 bytes"),
    ([0, 2 ** 63], "BOOL", r"too large"),
    ([1] * 65, "F32", r"tensor 'a' has 65 dims; a tensor has at most 64"),
    ([0] * 100000, "F32", r"has 100000 dims"),
])
def test_impossible_shapes_are_refused(tmp_path, shape, code, match):
    nbytes = 4 if shape == [1] * 65 else 0
    _refused(tmp_path, _file(_entry(shape, code, nbytes), bytes(nbytes)), match)


def test_shape_limits_are_exact():
    ok = ember.io.load(_file(_entry([0, 2 ** 30, 2 ** 30])))["a"]   # 2**62 bytes spanned
    assert ok.shape == (0, 2 ** 30, 2 ** 30) and ok.numel() == 0
    ok = ember.io.load(_file(_entry([1] * 64, nbytes=4), b"\x00\x00\x80\x3f"))["a"]
    assert ok.ndim == 64 and ok.sum().item() == 1.0
    for header, match in [(_entry([0, 2 ** 31, 2 ** 31]), "too large"),
                          (_entry([1] * 65, nbytes=4), "65 dims")]:
        with pytest.raises(InvalidParameterError, match=match):
            ember.io.load(_file(header, bytes(header["a"]["data_offsets"][1])))


# -- nesting ------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", [
    b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}",      # 200 KB of nested arrays
    b'{"a":' + b"[" * 200_000,                               # and unclosed ones
    b'{"a":' + b'{"b":' * 50_000 + b"1" + b"}" * 50_001,     # nested objects
    b'{"a":' + b"[[]," * 60_000 + b"]" * 60_000 + b"}",     # never two "[" in a row
])
def test_deeply_nested_header_is_refused_without_recursion(tmp_path, header):
    _refused(tmp_path, _file(header), r"invalid header: its arrays and objects nest more than "
                                      r"64 deep")


def test_nesting_limit_is_exact_and_strings_do_not_count():
    def header(depth):
        return b'{"a":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"
    with pytest.raises(InvalidParameterError, match=r"the entry of tensor 'a' is not an object"):
        ember.io.load(_file(header(64)))
    with pytest.raises(InvalidParameterError, match=r"nest more than 64 deep"):
        ember.io.load(_file(header(65)))
    meta = {"note": "[" * 100_000 + '\\"{[' + "\\\\" + "]" * 3}
    data = _file({"__metadata__": meta, **_entry([1], nbytes=4)}, bytes(4))
    assert ember.io.load(data)["a"].tolist() == [0.0]
    path_meta = json.loads(data[8:8 + int.from_bytes(data[:8], "little")])["__metadata__"]
    assert path_meta == meta


# -- ember.load structures ------------------------------------------------------------------------

def _checkpoint(tmp_path, structure, tensors=None):
    """A checkpoint file whose structure is ``structure`` (JSON text), as ember.save lays it
    out, with ``tensors`` named "0", "1", ..."""
    path = tmp_path / "c.ckpt"
    meta = {"format": "ember.checkpoint", "version": "1", "structure": structure}
    ember.io.save_file(tensors or {}, path, metadata=meta)
    return path


@pytest.mark.parametrize("structure", [
    "[" * 100_000 + "]" * 100_000,
    '{"dict": [["k", ' * 20_000 + "1" + "]]}" * 20_000,
    "[" * 194 + "]" * 194,
])
def test_deeply_nested_structure_is_refused_without_recursion(tmp_path, structure):
    path = _checkpoint(tmp_path, structure)
    with pytest.raises(InvalidParameterError, match=r"not a valid ember checkpoint: obj: its "
                                                    r"structure nests more than 193 levels"):
        ember.load(path)


def test_structure_nesting_limit_is_what_save_writes(tmp_path):
    deepest = ember.ones(2)
    for i in range(64):
        deepest = {"k": deepest} if i % 2 else [deepest]
    path = tmp_path / "deep.ckpt"
    ember.save(deepest, path)
    got = ember.load(path)
    for i in range(64):
        got = got["k"] if i % 2 == 0 else got[0]
    assert got.tolist() == [1.0, 1.0]
    assert ember.load(_checkpoint(tmp_path, "[" * 193 + "]" * 193)) is not None
    for n in (65, 5000):
        too_deep = 1
        for _ in range(n):
            too_deep = [too_deep]
        with pytest.raises(InvalidParameterError, match=r"nested in 64 lists, tuples and dicts; "
                                                        r"a checkpoint nests at most 64"):
            ember.save(too_deep, tmp_path / "no.ckpt")
        assert not (tmp_path / "no.ckpt").exists()


MALFORMED = [
    ('{"float": []}', r"unexpected JSON object \{'float': \[\]\}"),
    ('{"float": "infinity"}', r"unexpected JSON object"),
    ('{"tensor": []}', r"tensor \[\] is not in the file"),
    ('{"tensor": {"0": 1}}', r"tensor \{'0': 1\} is not in the file"),
    ('{"tensor": "7"}', r"tensor '7' is not in the file"),
    ('{"tensor": "0", "requires_grad": "yes"}', r"requires_grad is 'yes'; expected true or "
                                                r"false"),
    ('{"tensor": "0", "requires_grad": 1}', r"requires_grad is 1"),
    ('{"tensor": "1", "requires_grad": true}', r"tensor '1' is int64 and cannot require grad"),
    ('{"set": [1, 2]}', r"unexpected JSON object \{'set': \[1, 2\]\}"),
    ('{"tuple": [1], "dict": []}', r"unexpected JSON object"),
    ('{"dict": [[[1], 2]]}', r"a dict entry \[\[1\], 2\] is not a \[key, value\] pair"),
    ('{"dict": [["k", 1, 2]]}', r"a dict entry \['k', 1, 2\] is not a \[key, value\] pair"),
    ('{"dict": [[true, 1]]}', r"a dict entry \[True, 1\] is not a \[key, value\] pair"),
    ("{}", r"unexpected JSON value \{\}"),
    ('{"big": "' + "x" * 100_000 + '"}', r"unexpected JSON object \{'big': 'xxx.*\.\.\.$"),
]


def test_unknown_or_malformed_tags_are_refused(tmp_path):
    tensors = {"0": ember.ones(2), "1": ember.tensor([1, 2], dtype="int64")}
    for structure, match in MALFORMED:
        path = _checkpoint(tmp_path, structure, tensors)
        with pytest.raises(InvalidParameterError, match=r"not a valid ember checkpoint: obj: "
                                                        + match) as info:
            ember.load(path)
        assert len(str(info.value)) < 1000
    # the well-formed tags load
    path = _checkpoint(tmp_path, '[{"tensor": "0", "requires_grad": true}, {"float": "-inf"}, '
                                 '{"tuple": [{"tensor": "1"}]}, {"dict": [[3, null]]}]', tensors)
    w, low, (n,), d = ember.load(path)
    assert w.is_require_grad() and w.tolist() == [1.0, 1.0] and low == -float("inf")
    assert n.tolist() == [1, 2] and d == {3: None}


def test_impossible_tensor_in_a_checkpoint_is_refused(tmp_path):
    path = tmp_path / "c.ckpt"
    meta = json.dumps({"__metadata__": {"format": "ember.checkpoint", "version": "1",
                                        "structure": '{"tensor": "0"}'},
                       "0": {"dtype": "F32", "shape": [0, 2 ** 70], "data_offsets": [0, 0]}})
    path.write_bytes(_file(meta.encode()))
    with pytest.raises(InvalidParameterError, match=r"tensor '0' has shape "
                                                    r"\(0, 1180591620717411303424\), too large"):
        ember.load(path)

"""ember/torch/_dtypes.py against torch 2.13: under ``ember.torch`` dtypes print as PyTorch's
(``torch.float32``) and have its attributes, equal and hash as ember's dtypes both ways, pickle
to themselves, and every op of either API takes them; ``import ember`` keeps ``ember.float32``."""

import copy
import io
import pickle

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.dtypes import DType
from ember.errors import KindError

NAMES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8",
         "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]
ALIASES = ["float", "double", "half", "cfloat", "cdouble", "int", "long", "short"]
EMBER_OF = {n: getattr(ember.dtypes, "bool_" if n == "bool" else n) for n in NAMES}


def _device_has(name):
    """Whether the default device has the dtype ``name``: a dtype it lacks is left out, as the
    conftest leaves out such parameters."""
    try:
        ember.zeros(0).device.backend.native_dtype(ember.dtypes.as_dtype(name))
    except KindError:
        return False
    return True


def same_dtype(ours, theirs):
    """``ours`` (an ember.torch dtype) prints as, and is the twin of, torch's ``theirs``."""
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert type(ours) is et.dtype


@pytest.mark.parametrize("name", NAMES + ALIASES)
def test_names_print_as_torch(name):
    ours, theirs = getattr(et, name), getattr(torch, name)
    same_dtype(ours, theirs)
    assert f"{ours}" == f"{theirs}" and isinstance(ours, DType) and isinstance(ours, et.dtype)


@pytest.mark.parametrize("name", NAMES)
def test_attributes(name):
    ours, theirs = getattr(et, name), getattr(torch, name)
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    same_dtype(ours.to_real(), theirs.to_real())
    if name == "float16":  # torch's complex32, which ember lacks
        with pytest.raises(KindError, match="complex32"):
            ours.to_complex()
    elif ours.is_floating_point or ours.is_complex:
        same_dtype(ours.to_complex(), theirs.to_complex())
    else:
        with pytest.raises(RuntimeError):
            theirs.to_complex()
        with pytest.raises(KindError):
            ours.to_complex()


@pytest.mark.parametrize("name", NAMES)
def test_equal_and_hash_both_ways(name):
    twin, own = getattr(et, name), EMBER_OF[name]
    assert twin == own and own == twin and not twin != own and not own != twin
    assert hash(twin) == hash(own)
    assert {own: 1}[twin] == 1 and {twin: 2}[own] == 2
    assert own in {twin} and twin in {own} and twin in (own,) and own in [twin]
    assert len({twin, own}) == 1
    others = [n for n in NAMES if n != name]
    for other in others:
        assert twin != EMBER_OF[other] and EMBER_OF[other] != twin
        assert twin != getattr(et, other) and not twin == getattr(et, other)
    assert twin != name and twin != getattr(torch, name)  # neither a name nor torch's own


@pytest.mark.parametrize("name", NAMES)
def test_pickling(name):
    twin, own = getattr(et, name), EMBER_OF[name]
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(twin, protocol)) is twin
        assert pickle.loads(pickle.dumps(own, protocol)) is own
    assert copy.copy(twin) is twin and copy.deepcopy(twin) is twin
    assert copy.deepcopy({"d": twin})["d"] is twin


def test_ember_side_keeps_its_dtypes():
    assert repr(ember.float32) == "ember.float32" and str(ember.float32) == "float32"
    assert repr(ember.zeros(2).dtype) == "ember.float32"
    assert repr(ember.tensor([1, 2]).dtype) == "ember.int64"
    assert repr(ember.promote_types(ember.int8, ember.uint8)) == "ember.int16"
    x = et.tensor([1.0, 2.0], dtype=et.float64)
    assert repr(et.as_ember(x).dtype) == "ember.float64" and repr(x.dtype) == "torch.float64"
    assert et.as_ember(x).dtype is ember.float64
    xp = pytest.importorskip("ember.array_api")
    assert repr(xp.float32) == "ember.float32" and xp.float32 is ember.float32
    assert xp.asarray([1.0]).dtype is ember.float32


def _torch_made():
    """Pairs (label, ember.torch tensor, torch tensor) built the same way through each API."""
    out = []
    for lib, tag in ((et, "ours"), (torch, "theirs")):
        g = np.random.default_rng(0)
        a = g.standard_normal((3, 4))
        x = lib.tensor(a)                     # float64 from a float64 array
        i = lib.tensor([[1, 2], [3, 4]])
        made = {
            "tensor": x, "tensor ints": i, "tensor bools": lib.tensor([True, False]),
            "zeros": lib.zeros(2, 3), "ones int8": lib.ones(2, dtype=lib.int8),
            "arange": lib.arange(5), "arange float": lib.arange(0.0, 1.0, 0.25),
            "full": lib.full((2,), 3), "randn": lib.randn(2, 2), "rand_like": lib.rand_like(x),
            "linspace": lib.linspace(0, 1, 3),
            "eye": lib.eye(2, dtype=lib.cfloat), "from_numpy": lib.from_numpy(a.astype(np.int16)),
            "zeros 0-d": lib.zeros(()), "empty size-0": lib.empty(0, 3, dtype=lib.uint8),
            "double()": x.float().double(), "long()": x.long(), "bool()": x.bool(),
            "to(int8)": x.to(lib.int8),
            "type(float)": i.type(lib.float), "argmax": x.argmax(1), "x > 0": x > 0,
            "sum of ints": i.sum(), "mean": x.mean(0), "matmul": x @ x.T,
            "non-contiguous": x.T[::2].float(), "where": lib.where(x > 0, x, 0.0),
            "topk indices": x.topk(2).indices, "nonzero": i.nonzero(), "i / i": i / i,
            "i * 1.5": i * 1.5, "complex": lib.complex(x, x), "abs of complex":
            lib.complex(x, x).abs(), "cat": lib.cat([i, i.to(lib.int32)]),
        }
        if _device_has("float16"):  # array-api-strict has no float16 nor bfloat16
            made["empty half"] = lib.empty(2, dtype=lib.half)
        if _device_has("bfloat16"):
            made["to(dtype=)"] = x.to(dtype=lib.bfloat16)
        for k, v in made.items():
            out.append((tag, k, v))
    ours = {k: v for tag, k, v in out if tag == "ours"}
    theirs = {k: v for tag, k, v in out if tag == "theirs"}
    return [(k, ours[k], theirs[k]) for k in ours]


@pytest.mark.parametrize("label,ours,theirs", _torch_made(), ids=lambda v: v if
                         isinstance(v, str) else "")
def test_tensor_dtype_prints_as_torch(label, ours, theirs):
    same_dtype(ours.dtype, theirs.dtype)
    assert type(ours._dtype) is DType  # the tensor itself holds ember's singleton
    assert ours.dtype == ours._dtype and ours.type() == theirs.type()
    assert repr(ours) == repr(theirs) or label in ("randn", "rand_like", "empty half")


@pytest.mark.half_precision
def test_returned_dtypes_are_twins():
    pairs = [
        (et.get_default_dtype(), torch.get_default_dtype()),
        (et.promote_types(et.int8, et.uint8), torch.promote_types(torch.int8, torch.uint8)),
        (et.promote_types(ember.float16, et.bfloat16),
         torch.promote_types(torch.float16, torch.bfloat16)),
        (et.result_type(et.tensor([1, 2]), 2.5), torch.result_type(torch.tensor([1, 2]), 2.5)),
        (et.get_autocast_dtype("cpu"), torch.get_autocast_dtype("cpu")),
        (et.FloatTensor.dtype, torch.FloatTensor.dtype),
        (et.FloatTensor([1.0]).dtype, torch.FloatTensor([1.0]).dtype),
    ]
    for ours, theirs in pairs:
        same_dtype(ours, theirs)
    et.set_default_dtype(et.float64)
    try:
        same_dtype(et.get_default_dtype(), et.float64)
        same_dtype(et.tensor([1.5]).dtype, torch.float64)
    finally:
        et.set_default_dtype(et.float32)
    with et.autocast("cpu", dtype=et.bfloat16) as ctx:
        same_dtype(ctx.fast_dtype, torch.bfloat16)
        y = et.nn.functional.linear(et.ones(2, 3), et.ones(4, 3))
    same_dtype(y.dtype, torch.bfloat16)
    for lib in (et, torch):  # iinfo/finfo report the dtype by name in both
        assert lib.iinfo(lib.int8).dtype == "int8" and lib.finfo(lib.half).dtype == "float16"
    assert et.can_cast(et.int8, ember.uint8) == torch.can_cast(torch.int8, torch.uint8)


def test_modules_data_and_checkpoints():
    et.manual_seed(0)
    mods = [et.nn.Linear(3, 2), et.nn.Conv2d(1, 2, 3), et.nn.BatchNorm1d(4),
            et.nn.Embedding(5, 2), et.nn.LSTM(3, 4)]
    theirs = [torch.nn.Linear(3, 2), torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm1d(4),
              torch.nn.Embedding(5, 2), torch.nn.LSTM(3, 4)]
    for m, t in zip(mods, theirs):
        ours_sd, theirs_sd = m.state_dict(), t.state_dict()
        assert list(ours_sd) == list(theirs_sd)
        for k in ours_sd:
            same_dtype(ours_sd[k].dtype, theirs_sd[k].dtype)
        for (_, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
            same_dtype(p.dtype, q.dtype)
        same_dtype(m.double().state_dict()[next(iter(ours_sd))].dtype, torch.float64)
    from ember.torch.utils.data import DataLoader, TensorDataset, default_collate
    from torch.utils.data import DataLoader as TDataLoader, TensorDataset as TTensorDataset
    ds = TensorDataset(et.arange(6.0).reshape(3, 2), et.tensor([0, 1, 1], dtype=et.uint8))
    tds = TTensorDataset(torch.arange(6.0).reshape(3, 2), torch.tensor([0, 1, 1],
                                                                       dtype=torch.uint8))
    for (x, y), (tx, ty) in zip(DataLoader(ds, batch_size=2), TDataLoader(tds, batch_size=2)):
        same_dtype(x.dtype, tx.dtype)
        same_dtype(y.dtype, ty.dtype)
    batch = [(0.5, 1, True, np.float32(2.0)), (1.5, 2, False, np.float32(3.0))]
    from torch.utils.data import default_collate as t_collate
    for ours, theirs in zip(default_collate(batch), t_collate(batch)):
        same_dtype(ours.dtype, theirs.dtype)
    # dtypes in checkpoints: ember.torch writes torch's globals and reads them as its twins
    buf = io.BytesIO()
    et.save({"dt": et.float16, "own": ember.int8, "w": et.ones(2, dtype=et.int16)}, buf)
    buf.seek(0)
    back = et.load(buf)
    assert back["dt"] is et.float16 and back["own"] is et.int8
    same_dtype(back["w"].dtype, torch.int16)
    buf.seek(0)
    loaded = torch.load(buf, weights_only=True)
    assert loaded["dt"] is torch.float16 and loaded["own"] is torch.int8
    assert loaded["w"].dtype is torch.int16
    tbuf = io.BytesIO()
    torch.save({"dt": torch.bfloat16, "w": torch.ones(2, dtype=torch.float64)}, tbuf)
    tbuf.seek(0)
    back = et.load(tbuf)
    assert back["dt"] is et.bfloat16 and back["dt"] == ember.bfloat16
    same_dtype(back["w"].dtype, torch.float64)


@pytest.mark.half_precision
def test_ember_ops_take_twins():
    z = ember.zeros(2, dtype=et.float64)
    assert type(z) is ember.Tensor and z.dtype is ember.float64
    assert ember.tensor([1, 2], dtype=et.int32).dtype is ember.int32
    assert ember.arange(3, dtype=et.long).dtype is ember.int64
    assert ember.ones(2).to(et.float16).dtype is ember.float16
    assert ember.ones(2).cast(et.bool).dtype is ember.bool_
    assert ember.full((2,), 1.5, dtype=et.double).tolist() == [1.5, 1.5]
    assert ember.dtypes.as_dtype(et.cfloat) is ember.complex64
    assert ember.promote_types(et.int8, ember.uint8) is ember.int16
    x = ember.ones(3)
    assert x.to(et.float32) is x  # already that dtype: itself, as with ember's own
    assert ember.zeros(2, dtype=et.uint8).dtype == et.uint8
    assert ember.tensor([1.0], dtype=et.float32).sum().cast(et.float64).dtype is ember.float64


def test_ember_torch_ops_take_either():
    for dt in (et.float64, ember.float64, "float64"):
        x = et.zeros(2, dtype=dt)
        same_dtype(x.dtype, torch.float64)
        assert x._dtype is ember.float64
    x = et.ones(2, 3)
    assert x.to(et.float32) is x and x.to(ember.float32) is x and x.type(et.float) is x
    assert x.to(ember.int8).dtype == et.int8 and x.to(et.int8)._dtype is ember.int8
    same_dtype(x.sum(dtype=et.float64).dtype, torch.float64)
    assert x.dtype in (et.float16, et.float32) and x.dtype in (ember.float32,)
    assert x.is_floating_point() and x.dtype.is_floating_point
    assert isinstance(x, et.FloatTensor) and not isinstance(x, et.DoubleTensor)
    same_dtype(et.tensor([1, 2]).type(et.DoubleTensor).dtype, torch.float64)
    s = et.TypedStorage([1, 2], dtype=et.int64)
    same_dtype(s.dtype, torch.int64)
    assert isinstance(s, et.LongStorage) and s.type() == "torch.LongStorage"
    with pytest.raises(KindError):
        et.finfo(et.int32)
    assert et.finfo(et.complex64).bits == torch.finfo(torch.complex64).bits == 32
    assert et.iinfo(et.uint8).max == 255
    # mixing the APIs: a twin and ember's own meet in promotion and in comparisons
    a, b = et.ones(2, dtype=et.int8), ember.ones(2, dtype=ember.uint8)
    same_dtype((a + b).dtype, torch.int16)
    assert (a + b)._dtype is ember.int16

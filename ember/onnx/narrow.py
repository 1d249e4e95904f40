"""ONNX's narrow element types that ember has no dtype for: float8 (e4m3fn, e4m3fnuz, e5m2,
e5m2fnuz, e8m0fnu), float4 e2m1, int4/uint4 and int2/uint2.

Inside a graph such a value is an ember tensor of a wider dtype (float32 for the float formats,
int8/uint8 for the integer ones) that holds exactly the narrow format's values (``Cast`` rounds
to the format, see ``ops_math.to_format``). At the boundary, ONNX's own API (onnx.numpy_helper,
the backend test runner) speaks NumPy arrays of ``ml_dtypes`` types: ``widen`` turns such an
array into one ember reads, ``narrow`` turns an output back into the format the graph declares.
This is the one ember.onnx module that names ``ml_dtypes`` (tests/backends/test_seam.py lists
it among the NumPy-as-data modules).

>>> import numpy as np, ml_dtypes
>>> from ember.onnx.narrow import widen, narrow
>>> a = np.array([1.0, 448.0], np.float32).astype(ml_dtypes.float8_e4m3fn)
>>> widen(a).dtype.name, narrow(widen(a), 17).dtype.name
('float32', 'float8_e4m3fn')
"""

import numpy as np

from .. import dtypes as _dt

# ONNX element type -> (ml_dtypes type name, the ember dtype that carries its values)
NARROW = {17: ("float8_e4m3fn", _dt.float32), 18: ("float8_e4m3fnuz", _dt.float32),
          19: ("float8_e5m2", _dt.float32), 20: ("float8_e5m2fnuz", _dt.float32),
          21: ("uint4", _dt.uint8), 22: ("int4", _dt.int8), 23: ("float4_e2m1fn", _dt.float32),
          24: ("float8_e8m0fnu", _dt.float32), 25: ("uint2", _dt.uint8), 26: ("int2", _dt.int8)}
_BY_NAME = {name: wide for name, wide in NARROW.values()}


def widen(value):
    """``value`` unchanged, or, when it is a NumPy array of a narrow ml_dtypes type, the same
    values in the wider NumPy dtype that carries them in ember."""
    dtype = getattr(value, "dtype", None)
    wide = _BY_NAME.get(getattr(dtype, "name", None))
    if wide is None or not isinstance(value, (np.ndarray, np.generic)):
        return value
    return np.asarray(value).astype(wide.name)


def narrow(array, code):
    """The NumPy array ``array`` (the wide carrier of ONNX element type ``code``) as an array of
    that narrow ml_dtypes type; ``array`` unchanged for any other element type."""
    entry = NARROW.get(code)
    if entry is None or array is None:
        return array
    import ml_dtypes
    return np.asarray(array).astype(getattr(ml_dtypes, entry[0]))

"""Pure shape arithmetic: dims, shapes given as varargs or one sequence, broadcasting, reshape inference."""

import functools
import operator

from .errors import DimensionError, InvalidParameterError, ShapeMismatchError

__all__ = ["argfix", "as_int", "normalize_dim", "normalize_dims", "broadcast_shapes", "infer_shape",
           "prod", "is_plain_shape", "is_permutation", "check_rank", "MAX_RANK"]

MAX_RANK = 64  # the most dims a tensor can have (NumPy's limit)


def prod(values):
    """Product of a sequence of ints (1 for an empty one)."""
    result = 1
    for v in values:
        result *= v
    return result


_INT64_BOUND = 1 << 63


def as_int(value, op, param, wide=False):
    """``value`` as a Python int; InvalidParameterError naming ``param`` if it is not an integer,
    or if it is outside the int64 range ``[-2**63, 2**63)`` that sizes, dims and counts live in
    (``wide=True`` skips that check, for slice bounds and seeds that may be any int).

    >>> as_int(3, "repeat", "repeats")
    3
    """
    if type(value) is not int:  # a bool's type is bool
        value = _as_int(value, op, param)
    if wide or -_INT64_BOUND <= value < _INT64_BOUND:
        return value
    raise InvalidParameterError(
        f"{op}: {param} {value} is out of range; expected an int in [-2**63, 2**63)", param, value)


def _as_int(value, op, param):
    if isinstance(value, bool):
        raise InvalidParameterError(f"{op}: {param} must be an int, got bool {value!r}", param, value)
    try:
        return operator.index(value)
    except TypeError:
        pass
    item = getattr(value, "item", None)  # a one-element int tensor
    if item is not None and getattr(value, "kind", None) == "int" and value.numel() == 1:
        return int(item())
    raise InvalidParameterError(
        f"{op}: {param} must be an int, got {type(value).__name__} {value!r}", param, value)


def check_rank(rank, op, param="shape", value=None):
    """``rank`` itself, or InvalidParameterError when a tensor of that many dims cannot exist:
    every op that makes a result of a higher rank than its inputs checks it here.

    >>> check_rank(3, "unsqueeze")
    3
    """
    if rank > MAX_RANK:
        raise InvalidParameterError(
            f"{op}: {param} gives a result of rank {rank}, more than the {MAX_RANK} dims a tensor "
            f"can have; expected at most {MAX_RANK} dims", param, value)
    return rank


def argfix(args, op, param="shape"):
    """Varargs or one sequence, as tinygrad's argfix: ``f(2, 3)`` and ``f((2, 3))`` both give
    ``(2, 3)``; more than ``MAX_RANK`` entries raise (no tensor has that many dims)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    elif len(args) == 1 and hasattr(args[0], "tolist") and not isinstance(args[0], (int,)):
        args = args[0].tolist()
        if not isinstance(args, list):
            args = [args]
    if len(args) > MAX_RANK:
        check_rank(len(args), op, param, tuple(args))
    return tuple(args)


def normalize_dim(dim, ndim, op, param="dim"):
    """A dim in ``[-ndim, ndim)`` turned non-negative; DimensionError otherwise."""
    if type(dim) is not int:
        dim = as_int(dim, op, param)
    if -ndim <= dim < ndim:
        return dim + ndim if dim < 0 else dim
    if ndim == 0:
        expected = "a 0-d tensor has no dims"
    else:
        expected = f"expected a dim in [{-ndim}, {ndim - 1}]"
    raise DimensionError(f"{op}: {param} {dim} is out of range for a tensor of rank {ndim}; {expected}")


def normalize_dims(dims, ndim, op, param="dims", allow_duplicates=False):
    """A sequence of dims normalized; duplicates raise unless allowed."""
    if isinstance(dims, (list, tuple)):
        out = tuple(normalize_dim(d, ndim, op, param) for d in dims)
    else:
        out = (normalize_dim(dims, ndim, op, param),)
    if not allow_duplicates and len(set(out)) != len(out):
        raise InvalidParameterError(f"{op}: {param} {tuple(dims) if isinstance(dims, (list, tuple)) else dims} "
                                    f"repeats a dim; expected distinct dims", param, dims)
    return out


def broadcast_shapes(*shapes, op="broadcast"):
    """The broadcast of shapes, NumPy's rule; ShapeMismatchError if they don't broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, size in enumerate(shape):
            cur = result[offset + i]
            if size != cur:
                if cur == 1:
                    result[offset + i] = size
                elif size != 1:
                    raise ShapeMismatchError(
                        f"{op}: shapes {' and '.join(str(tuple(s)) for s in shapes)} do not broadcast "
                        f"(size {size} against {cur} at dim {offset + i - ndim})",
                        expected=tuple(result), actual=tuple(shape))
    return tuple(result)


def infer_shape(new_shape, old_shape, op="reshape"):
    """Resolve ``-1`` (inferred), ``0`` and ``None`` (keep the old size) in a reshape target."""
    if len(new_shape) > MAX_RANK:
        check_rank(len(new_shape), op, "shape", tuple(new_shape))
    numel = prod(old_shape)
    out = []
    infer_at = None
    for i, size in enumerate(new_shape):
        if size is None or (isinstance(size, int) and not isinstance(size, bool) and size == 0
                            and i < len(old_shape) and old_shape[i] != 0):
            if i >= len(old_shape):
                raise InvalidParameterError(
                    f"{op}: shape {tuple(new_shape)} keeps the size of dim {i}, which the input "
                    f"of shape {tuple(old_shape)} does not have", "shape", tuple(new_shape))
            out.append(old_shape[i])
            continue
        size = as_int(size, op, "shape")
        if size == -1:
            if infer_at is not None:
                raise InvalidParameterError(f"{op}: shape {tuple(new_shape)} has more than one -1",
                                            "shape", tuple(new_shape))
            infer_at = i
            out.append(1)
        elif size < 0:
            raise InvalidParameterError(f"{op}: shape {tuple(new_shape)} has negative size {size}; "
                                        "expected sizes >= 0 or one -1", "shape", tuple(new_shape))
        else:
            out.append(size)
    known = prod(out)
    if infer_at is not None:
        if known == 0 or numel % known:
            raise ShapeMismatchError(
                f"{op}: cannot infer the -1 in {tuple(new_shape)} for {numel} elements "
                f"(input shape {tuple(old_shape)})", expected=numel, actual=tuple(new_shape))
        out[infer_at] = numel // known
    elif known != numel:
        raise ShapeMismatchError(
            f"{op}: shape {tuple(new_shape)} has {known} elements, expected {numel} "
            f"(input shape {tuple(old_shape)})", expected=numel, actual=tuple(new_shape))
    return tuple(out)


# -- fast-path tests: cheap checks that an argument is already in its normalized form ------------

def is_plain_shape(sizes, numel):
    """Whether ``sizes`` is a tuple of ints >= 1 whose product is ``numel``: a reshape target with
    nothing to infer or check (no -1, 0, None or non-int), which ``infer_shape`` would return as is.

    >>> is_plain_shape((2, 3), 6), is_plain_shape((2, -1), 6), is_plain_shape((2, 3), 5)
    (True, False, False)
    """
    if type(sizes) is not tuple or len(sizes) > MAX_RANK:
        return False
    n = 1
    for size in sizes:
        if type(size) is not int or size < 1:
            return False
        n *= size
    return n == numel


_RANGES = [list(range(n)) for n in range(MAX_RANK + 1)]


def is_permutation(order, ndim):
    """Whether ``order`` holds plain non-negative ints that permute ``range(ndim)``: an order
    ``normalize_dims`` would return unchanged.

    >>> is_permutation((2, 0, 1), 3), is_permutation((0, 0, 1), 3), is_permutation((-1, 0), 2)
    (True, False, False)
    """
    if len(order) != ndim or ndim > MAX_RANK:
        return False
    for d in order:
        if type(d) is not int:
            return False
    return sorted(order) == _RANGES[ndim]


def fft_result_shape(a, s, dims, norm, forward, dtype, half=False):
    """The shape of an fft kernel's result for array ``a`` (its signal sizes ``s`` over ``dims``;
    ``half``: the last one keeps ``s[-1] // 2 + 1`` values, a real-to-complex transform), for
    the allocation guard's message. Takes the kernels' arguments.

    >>> fft_result_shape(type("A", (), {"shape": (4, 6)}), (8,), (1,), "backward", True, None,
    ...                  half=True)
    (4, 5)
    """
    shape = list(a.shape)
    for d, n in zip(dims, s):
        shape[d] = n
    if half:
        shape[dims[-1]] = s[-1] // 2 + 1
    return tuple(shape)


def fft_half_shape(*args):
    """``fft_result_shape`` of a real-to-complex transform."""
    return fft_result_shape(*args, half=True)


def dim_aliases(fn):
    """``fn`` (a function with ``dim`` and maybe ``keepdim`` parameters) also taking NumPy's
    ``axis`` and ``keepdims``, as PyTorch's reductions do; InvalidParameterError when both
    spellings of one parameter are given.

    >>> import ember
    >>> ember.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(axis=0, keepdims=True).tolist()
    [[4.0, 6.0]]
    """
    code = fn.__code__
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    aliases = [(alias, name, names.index(name)) for alias, name in
               (("axis", "dim"), ("keepdims", "keepdim")) if name in names]

    def rename(args, kwargs):
        """``kwargs`` (a call's own dict) with the aliases renamed, in place."""
        for alias, name, index in aliases:
            if alias in kwargs:
                if name in kwargs or len(args) > index:
                    raise InvalidParameterError(
                        f"{fn.__name__}: {name} and {alias} are one parameter ({alias} is "
                        f"NumPy's name for {name}); give one of them", alias, kwargs[alias])
                kwargs[name] = kwargs.pop(alias)

    @functools.wraps(fn)
    def method(*args, **kwargs):
        if kwargs:
            rename(args, kwargs)
        return fn(*args, **kwargs)
    # (fn, rename): for a wrapper of its own that renames before calling fn (one call, not two)
    method.dim_aliases_of = (fn, rename)
    return method

"""The creation kernels every backend provides (see ember/backends/base/__init__.py): arrays made
from nothing, computed with the Array API standard's functions; ``op`` names the op the user
called in an allocation error."""

import math

from ..guard import check_result
from .declare import required

# the largest finite value and the rounding step past it of each float dtype (by itemsize and
# mantissa bits): a value rounds to inf from max + step / 2 on (ties go to the even inf)
_FLOAT_LIMITS = {"float16": (15, 10), "bfloat16": (127, 7), "float32": (127, 23)}


class CreationKernels:
    def creation_full(self, shape, value, dtype, op="full"):
        """A new array of ``shape`` filled with ``value`` (already checked to fit ``dtype``)."""
        try:
            return self.xp.full(shape, value, dtype=self.native_dtype(dtype),
                                device=self.native_device)
        except Exception as exc:  # noqa: BLE001 - allocation_failed keeps what is not ours
            raise self.allocation_failed(exc, op, tuple(shape)) from None

    def creation_zeros(self, shape, dtype, op="zeros"):
        """A new zero-filled array."""
        try:
            return self.xp.zeros(shape, dtype=self.native_dtype(dtype), device=self.native_device)
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, tuple(shape)) from None

    def creation_fill_value_fits(self, value, dtype):
        """Whether the Python number ``value`` converts to ember ``dtype`` without loss of its
        integral value or overflow (floats may round; bool takes 0 and 1 only)."""
        if dtype.kind == "bool":
            return value == 0 or value == 1
        if dtype.kind == "int":
            if isinstance(value, float):
                if not math.isfinite(value) or value != int(value):
                    return False
                value = int(value)
            bits = dtype.itemsize * 8
            if dtype.is_signed:
                return -(1 << (bits - 1)) <= value < 1 << (bits - 1)
            return 0 <= value < 1 << bits
        try:
            as_float = float(value)
        except OverflowError:
            return False
        limits = _FLOAT_LIMITS.get(dtype.name)
        if limits is None or not math.isfinite(as_float):
            return True
        emax, mantissa = limits
        return abs(as_float) < 2.0 ** (emax + 1) - 2.0 ** (emax - mantissa - 1)

    def creation_arange(self, start, end, step, dtype, is_float, op="arange"):
        """``[start, end)`` by ``step`` as ember ``dtype``; float ranges are computed in float64 as
        ``start + i * step`` with ``ceil((end - start) / step)`` values (PyTorch's rule)."""
        xp = self.xp
        n = self.creation_arange_length(start, end, step, is_float)
        check_result(op, (n,), 8)  # before the library sees it: XLA fails on sizes past memory
        try:
            if is_float:
                out = start + xp.arange(n, dtype=xp.float64, device=self.native_device) * step
            else:
                # exact at int64's ends: each value start + i * step in int64 arithmetic, whose
                # wrap-around is exact since every value is within int64
                out = xp.arange(n, dtype=xp.int64, device=self.native_device)
                if step != 1:
                    out = out * ((step + 2 ** 63) % 2 ** 64 - 2 ** 63)
                if start:
                    out = out + start
            return xp.astype(out, self.native_dtype(dtype), copy=False)
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, (n,)) from None

    def creation_arange_length(self, start, end, step, is_float):
        """The number of values ``creation_arange`` would make."""
        if is_float:
            return max(0, math.ceil((end - start) / step))
        return max(0, -((start - end) // step))

    def creation_linspace(self, start, end, steps, dtype, op="linspace"):
        """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed in float64 from
        both ends as PyTorch does (complex ends: both parts so), then converted to ``dtype``
        (a complex dtype for complex ends)."""
        xp = self.xp
        target = self.native_dtype(dtype)
        try:
            if steps == 1:
                wide = xp.complex128 if dtype.kind == "complex" else xp.float64
                return xp.astype(xp.full((1,), start, dtype=wide, device=self.native_device),
                                 target)
            i = xp.arange(steps, dtype=xp.float64, device=self.native_device)
            step = (end - start) / (steps - 1)
            out = xp.where(i < steps // 2, start + i * step, end - (steps - 1 - i) * step)
            return xp.astype(out, target)
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, (steps,)) from None

    def creation_eye(self, n, m, dtype, op="eye"):
        """An ``n`` by ``m`` array with ones on the main diagonal."""
        xp = self.xp
        try:
            # made as bool: torch has no eye of its unsigned types past uint8
            return xp.astype(xp.eye(n, m, dtype=xp.bool, device=self.native_device),
                             self.native_dtype(dtype))
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, (n, m)) from None

    def _offsets(self, rows, cols):
        """column - row of each element of a ``rows`` by ``cols`` matrix (int64)."""
        xp = self.xp
        return (xp.arange(cols, dtype=xp.int64, device=self.native_device)[None, :]
                - xp.arange(rows, dtype=xp.int64, device=self.native_device)[:, None])

    def creation_tri_mask(self, shape, offset, part, op="tri_mask"):
        """Burn's triangle masks over the last two dims of ``shape``, broadcast to ``shape``: True
        marks the elements *outside* the part (``"upper"``, ``"lower"`` or ``"diag"``)."""
        bound = shape[-2] + shape[-1]  # offsets past it mark the same elements, and fit in int64
        offset = max(-bound, min(bound, offset))
        try:
            d = self._offsets(shape[-2], shape[-1])
            m = d < offset if part == "upper" else d > offset if part == "lower" else d != offset
            return self.contiguous(self.xp.broadcast_to(m, tuple(shape)), op)
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, tuple(shape)) from None

    def creation_tri_keep(self, a, diagonal, upper):
        """``a`` with the elements outside the upper (or lower) triangle set to zero (a new array)."""
        xp = self.xp
        if a.shape[-2] == 0 or a.shape[-1] == 0:
            return xp.asarray(a, copy=True)
        d = self._offsets(a.shape[-2], a.shape[-1])
        keep = d >= diagonal if upper else d <= diagonal
        return xp.where(keep, a, xp.zeros((), dtype=a.dtype, device=self.native_device))

    def creation_cartesian_grid(self, shape, op="cartesian_grid"):
        """int64 array of shape ``(*shape, len(shape))`` whose entry at each index is that index."""
        xp = self.xp
        dev = self.native_device
        try:
            if not shape:
                return xp.zeros((0,), dtype=xp.int64, device=dev)
            axes = [xp.arange(s, dtype=xp.int64, device=dev) for s in shape]
            return xp.stack(xp.meshgrid(*axes, indexing="ij"), axis=-1)
        except Exception as exc:  # noqa: BLE001
            raise self.allocation_failed(exc, op, tuple(shape) + (len(shape),)) from None

    @required
    def data_reshape_copy(self, a, shape):
        """A C-contiguous copy of ``a`` with a new shape of the same size."""

    @required
    def data_flat_list(self, a):
        """The values of ``a`` as one flat Python list, row-major."""

    @required
    def data_can_mut(self, a):
        """Whether ``a`` provably has its buffer to itself: it owns its memory, is writable, and
        nothing but the caller's one holder refers to it (no view, no buffer export, no
        other tensor, no saved autodiff step). False when that cannot be shown (no reference
        counts)."""

    def display_edges(self, a, edge):
        """``a`` reduced to its first and last ``edge`` items along every dim longer than ``2 * edge``,
        and the tuple of dims that were cut."""
        xp = self.xp
        cut = []
        for dim, size in enumerate(a.shape):
            if size > 2 * edge:
                idx = xp.concat([xp.arange(0, edge, device=self.native_device),
                                 xp.arange(size - edge, size, device=self.native_device)])
                a = xp.take(a, idx, axis=dim)
                cut.append(dim)
        return a, tuple(cut)

    def display_strings(self, a):
        """The elements of ``a`` as display strings, nested lists like ``a.tolist()`` (a single string
        for a 0-d array): floats always with a decimal point or an exponent, in the shortest
        form that reads back in their dtype; complex numbers ``1.0+2.0j`` (each part as a
        float of the part's dtype); ints plain; bools True/False."""
        from ...devices import CPU
        host = CPU.backend  # the host backend overrides this: text is made from host values
        return host.display_strings(host.from_host(self.to_host(a), self.dtype_of(a)))

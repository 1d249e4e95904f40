"""The distributed kernels (see ember/backends/base/__init__.py): the flat buffers ember lends to
torch.distributed. Allocation and views are written once; in-place writes, the hand-over to
torch and the seeded permutation stay each library's own."""

import math

from .declare import required


class DistributedKernels:
    def dist_buffer(self, n, dtype):
        """A new flat writable buffer of ``n`` elements of ember ``dtype`` (not initialised)."""
        return self.xp.empty((n,), dtype=self.native_dtype(dtype), device=self.native_device)

    def dist_zeros(self, n, dtype):
        """A new flat writable buffer of ``n`` zeros of ember ``dtype``."""
        return self.xp.zeros((n,), dtype=self.native_dtype(dtype), device=self.native_device)

    @required
    def dist_copy(self, a):
        """A C-contiguous copy of ``a`` that nothing else refers to."""

    @required
    def dist_pack(self, buffer, offset, a):
        """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.size]``."""

    def dist_unpack(self, buffer, offset, shape):
        """The view ``buffer[offset:...]`` of ``shape`` (a gradient handed out of a bucket)."""
        return self.xp.reshape(buffer[offset:offset + math.prod(shape)], tuple(shape))

    @required
    def dist_divide(self, buffer, divisor):
        """Divide ``buffer`` by ``divisor`` in place (the mean of a sum over ranks)."""

    @required
    def dist_torch(self, a):
        """``a`` as a torch tensor sharing its memory, for torch.distributed to work on in place
        (bfloat16, which NumPy lacks, through its 16 bits)."""

    def dist_result(self, a):
        """A buffer (or a view of one) as an array of this device, for a tensor to hold."""
        return a

    def dist_split(self, buffer, parts):
        """``buffer`` (flat) as ``parts`` equal consecutive views."""
        k = buffer.shape[0] // parts
        return [buffer[i * k:(i + 1) * k] for i in range(parts)]

    @required
    def dist_permutation(self, n, seed):
        """A permutation of ``range(n)`` (int64) drawn from its own generator seeded by ``seed``."""

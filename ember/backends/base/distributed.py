"""The distributed kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class DistributedKernels:
    @required
    def dist_buffer(self, n, dtype):
        """A new flat writable buffer of ``n`` elements of ember ``dtype`` (not initialised)."""

    @required
    def dist_zeros(self, n, dtype):
        """A new flat writable buffer of ``n`` zeros of ember ``dtype``."""

    @required
    def dist_copy(self, a):
        """A C-contiguous copy of ``a`` that nothing else refers to."""

    @required
    def dist_pack(self, buffer, offset, a):
        """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.size]``."""

    @required
    def dist_unpack(self, buffer, offset, shape):
        """The view ``buffer[offset:...]`` of ``shape`` (a gradient handed out of a bucket)."""

    @required
    def dist_divide(self, buffer, divisor):
        """Divide ``buffer`` by ``divisor`` in place (the mean of a sum over ranks)."""

    @required
    def dist_torch(self, a):
        """``a`` as a torch tensor sharing its memory, for torch.distributed to work on in place
        (bfloat16, which NumPy lacks, through its 16 bits)."""

    @required
    def dist_split(self, buffer, parts):
        """``buffer`` (flat) as ``parts`` equal consecutive views."""

    @required
    def dist_permutation(self, n, seed):
        """A permutation of ``range(n)`` (int64) drawn from its own generator seeded by ``seed``."""

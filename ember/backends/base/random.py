"""The random kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math

from .declare import allocates, required


def _first(shape, *args, **kwargs):
    return tuple(shape)


class RandomKernels:
    @required
    def random_seed(self, seed):
        """Restart the global generator from ``seed`` (an int >= 0)."""

    @required
    def random_generator(self, seed):
        """A new generator started from ``seed`` (an int >= 0)."""

    @required
    def random_get_state(self, gen):
        """The state of ``gen`` (None: the global one) as a uint8 array (PCG64's state)."""

    @required
    def random_set_state(self, gen, raw):
        """Restore a state of ``random_get_state`` into ``gen`` (None: the global one); returns False
        when ``raw`` is not such a state."""

    @required
    def random_entropy_seed(self):
        """A fresh seed (an int in [0, 2**63)) from the operating system's entropy."""

    @required
    def random_permutation(self, n, dtype, gen=None):
        """A random permutation of ``0 .. n-1`` of ember dtype ``dtype``."""

    @allocates(_first)
    def random_trunc_normal(self, shape, mean, std, a, b, dtype, gen=None, *, op=None):
        """Floats from N(mean, std**2) restricted to ``[a, b]`` (the ones outside redrawn, a
        round at a time; after 100 rounds the rest are clipped)."""
        xp, work = self.xp, self.widest_float
        x = self.random_normal(shape, mean, std, work, gen, op=op)
        for _ in range(100):
            bad = (x < a) | (x > b)
            if not bool(xp.any(bad)):
                break
            x = xp.where(bad, self.random_normal(shape, mean, std, work, gen, op=op), x)
        return self.cast(xp.clip(x, float(a), float(b)), dtype)

    @allocates(_first)
    def random_orthogonal(self, shape, gain, dtype, gen=None, *, op=None):
        """An array of ``shape`` whose flattening to (shape[0], rest) has orthonormal rows or
        columns, times ``gain`` (PyTorch's ``orthogonal_``: QR of a normal matrix, signs fixed
        by R's diagonal)."""
        xp = self.xp
        rows, cols = shape[0], math.prod(shape[1:])
        flat = self.random_normal((rows, cols), 0.0, 1.0, self.widest_float, gen, op=op)
        if rows < cols:
            flat = xp.matrix_transpose(flat)
        q, r = xp.linalg.qr(flat)
        d = xp.sign(xp.linalg.diagonal(r))
        q = q * xp.where(d == 0, xp.ones_like(d), d)
        if rows < cols:
            q = xp.matrix_transpose(q)
        return self.cast(xp.reshape(q * gain, tuple(shape)), dtype)

    @required
    def random_uniform(self, shape, low, high, dtype, gen=None):
        """Floats of ember dtype ``dtype`` uniform in ``[low, high)``."""

    @required
    def random_normal(self, shape, mean, std, dtype, gen=None):
        """Floats of ember dtype ``dtype`` from the normal distribution N(mean, std**2)."""

    @required
    def random_normal_int(self, shape, mean, std, dtype, gen=None):
        """Ints of ember dtype ``dtype``: normal samples rounded to the nearest int, clipped to range."""

    @required
    def random_bernoulli(self, shape, p, dtype, gen=None):
        """Ones (True) with probability ``p``, else zeros (False), of ember dtype ``dtype``."""

    @required
    def random_integers(self, shape, low, high, dtype, gen=None):
        """Ints of ember dtype ``dtype`` uniform in ``[low, high)`` (``high`` may be one past the max)."""

    @required
    def random_categorical(self, w, num_samples, replacement, gen=None):
        """Category indices (int64) drawn per row of weights ``w`` (categories along the last dim): the
        last dim of the result has ``num_samples`` entries."""

    def random_dtype_info(self, dtype):
        """(min, max) of an int ember dtype as Python ints."""
        bits = 8 * dtype.itemsize
        if dtype.is_signed:
            return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        return 0, (1 << bits) - 1

    def random_weights_check(self, w):
        """Find bad weights in ``w`` (categories along the last dim) before sampling.

        None when every weight is finite and >= 0 and every row has a positive, finite sum;
        else ``("bad", index, value)`` for the first negative, NaN or infinite weight, or
        ``("zero", row_index, None)`` / ``("overflow", row_index, None)`` for the first row
        whose sum is zero or overflows. Indices are tuples of Python ints (``()``: the one row of
        1-d weights)."""
        xp = self.xp
        w = self.cast(w, self.widest_float)
        if not math.prod(w.shape):
            return None
        total = xp.sum(w, axis=-1)
        if bool(xp.min(w) >= 0) and bool(xp.min(total) > 0) and bool(xp.max(total) < math.inf):
            return None  # the usual case, in three reductions (a NaN fails the >=)
        bad = ~xp.isfinite(w) | (w < 0)
        if bool(xp.any(bad)):
            idx = tuple(int(i[0]) for i in xp.nonzero(bad))
            return "bad", idx, float(w[idx])
        for what, ok in (("zero", total > 0), ("overflow", xp.isfinite(total))):
            if not bool(xp.all(ok)):  # (1-d weights: one row, index ())
                return what, tuple(int(i[0]) for i in xp.nonzero(~ok)) if ok.ndim else (), None
        return None

    def random_positive_counts(self, w):
        """The smallest number of positive weights along the last dim of ``w`` over all rows."""
        if math.prod(w.shape) == 0:
            return w.shape[-1]
        return int(self.xp.min(self.xp.sum(self.xp.astype(w > 0, self.xp.int64), axis=-1)))


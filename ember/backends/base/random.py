"""The random kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


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

    @required
    def random_trunc_normal(self, shape, mean, std, a, b, dtype, gen=None):
        """Floats from N(mean, std**2) restricted to ``[a, b]`` (redrawing the ones outside, a
        vectorized round at a time; after 100 rounds the rest are clipped)."""

    @required
    def random_orthogonal(self, shape, gain, dtype, gen=None):
        """An array of ``shape`` whose flattening to (shape[0], rest) has orthonormal rows or columns,
        times ``gain`` (PyTorch's ``orthogonal_``: QR of a normal matrix, signs fixed by R's
        diagonal)."""

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

    @required
    def random_dtype_info(self, dtype):
        """(min, max) of an int ember dtype as Python ints."""

    @required
    def random_weights_check(self, w):
        """Find bad weights in ``w`` (categories along the last dim) before sampling."""

    @required
    def random_positive_counts(self, w):
        """The smallest number of positive weights along the last dim of ``w`` over all rows."""

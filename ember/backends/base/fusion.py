"""Kernels of the abilities ``Backend.fuses`` (deferred element-wise chains, ember.ops.fusion)
and ``Backend.writes_in_place``. A backend without them keeps these defaults: nothing is
deferred, nothing is written in place, and ember.ops never calls the chain kernels on it."""


class FusionKernels:
    def ew_deferrable(self, a):
        """Whether the operand ``a`` may wait in a deferred chain (never, without ``fuses``)."""
        return False

    def ew_chain(self, kernel, operands, max_depth=32, max_held=4):
        """A deferred chain of ``kernel`` over ``operands`` (only on a backend that ``fuses``)."""
        raise TypeError(f"the {self.name} backend does not defer element-wise chains")

    def ew_evaluate(self, chain):
        """The array a deferred chain computes (only on a backend that ``fuses``)."""
        raise TypeError(f"the {self.name} backend does not defer element-wise chains")

    def ew_chain_sum(self, chain, last):
        """The sum of a chain's values without storing them, or None when it cannot (always
        None without ``fuses``: the caller sums the computed chain)."""
        return None

    def ew_shared_view(self, a):
        """A view of ``a``, an array someone else owns and may still write (``from_numpy``)."""
        return a

    def ew_inplace(self, name, holder, b):
        """Write ``holder``'s array ``<name>`` ``b`` into its own memory when nobody else can
        see it; whether it did (never, without ``writes_in_place``: the caller computes a new
        array)."""
        return False

"""Kernels of the abilities ``Backend.fuses`` (a backend that computes deferred element-wise
chains: its module wraps it in ``ember.backends.lazy.Lazy``) and ``Backend.writes_in_place``.
A backend without them keeps these defaults: nothing is deferred, nothing is written in place."""


class FusionKernels:
    def ew_deferrable(self, a):
        """Whether the operand ``a`` may wait in a deferred chain (never, without ``fuses``)."""
        return False

    def ew_evaluate(self, chain):
        """The array a deferred chain (``ember.backends.lazy.Chain``) computes, computed once
        (only on a backend that ``fuses``)."""
        raise TypeError(f"the {self.name} backend does not compute deferred element-wise chains")

    def ew_chain_sum(self, chain, last):
        """The sum of a chain's values without storing them, or None when it cannot (always
        None without ``fuses``: the caller sums the computed chain)."""
        return None

    def ew_shared_view(self, a):
        """A view of ``a``, an array someone else owns and may still write (``from_numpy``)."""
        return a

    def ew_inplace(self, name, holder, b, holders=1):
        """Write ``holder``'s array ``<name>`` ``b`` into its own memory when nobody else can
        see it (but ``holders`` tensors, ``holder`` among them, that hold that very array);
        whether it did (never, without ``writes_in_place``: the caller computes a new
        array)."""
        return False

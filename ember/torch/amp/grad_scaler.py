"""``torch.amp.GradScaler`` (also ``torch.GradScaler``): dynamic loss scaling for training in
16-bit floats. ``scale(loss)`` multiplies by the current scale so small gradients survive in
float16; ``step(optimizer)`` divides the gradients back (``unscale_``) and skips the step when
any is inf or NaN; ``update()`` then halves the scale (``backoff_factor``) after an overflow, or
doubles it (``growth_factor``) after ``growth_interval`` clean steps in a row.

>>> import ember.torch as torch
>>> w = torch.nn.Parameter(torch.ones(2))
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
>>> scaler.scale((w * w).sum()).backward()
>>> w.grad.tolist()
[16.0, 16.0]
>>> scaler.step(opt); scaler.update()
>>> w.tolist(), scaler.get_scale()
([0.800000011920929, 0.800000011920929], 8.0)
"""

import math
import struct
import warnings

from ... import cuda as _cuda
from ...autodiff.graph import no_grad
from ...dtypes import float16, float32, float64
from ...errors import GraphError, InvalidParameterError, KindError
from ...ops.creation import full
from ...ops.inplace import rebind
from ..._tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState:
    """Where an optimizer is in the current iteration: READY, UNSCALED (``unscale_`` ran) or
    STEPPED (``step`` ran)."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


def _fits_float32(value):
    """Whether ``value`` rounds to a finite float32."""
    try:
        return math.isfinite(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return False


def _number(value, op, param):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise InvalidParameterError(f"{op}: {param} must be a number, got {value!r}", param,
                                    value)
    return float(value)


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)`` (see the module docstring). ``device`` is the device
    type of the gradients (``"cpu"`` or ``"cuda"``); ``"cuda"`` without a CUDA device warns and
    disables the scaler, as PyTorch's. A disabled scaler passes everything through.

    >>> import ember.torch as torch
    >>> torch.amp.GradScaler("cpu", growth_interval=4).state_dict()
    {'scale': 65536.0, 'growth_factor': 2.0, 'backoff_factor': 0.5, 'growth_interval': 4, \
'_growth_tracker': 0}
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        op = "GradScaler"
        if not isinstance(device, str):
            raise KindError(f"{op}: device must be a str such as 'cpu' or 'cuda', got "
                            f"{type(device).__name__}")
        if not isinstance(enabled, bool):
            raise KindError(f"{op}: enabled must be a bool, got {type(enabled).__name__}")
        self._device = device
        self._enabled = enabled
        if enabled and device.split(":")[0] == "cuda" and not _cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            self._init_scale = _number(init_scale, op, "init_scale")
            self._check_growth(growth_factor, op)
            self._check_backoff(backoff_factor, op)
            self._check_interval(growth_interval, op)
            self._growth_factor = float(growth_factor)
            self._backoff_factor = float(backoff_factor)
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._scale = None            # a 0-d float32 tensor, made by the first scale()
            self._growth_tracker = None   # clean steps in a row
            self._per_optimizer_states = {}

    @staticmethod
    def _check_growth(value, op):
        if _number(value, op, "growth_factor") <= 1.0:
            raise InvalidParameterError(f"{op}: The growth factor must be > 1.0, got {value}",
                                        "growth_factor", value)

    @staticmethod
    def _check_backoff(value, op):
        if _number(value, op, "backoff_factor") >= 1.0:
            raise InvalidParameterError(f"{op}: The backoff factor must be < 1.0, got {value}",
                                        "backoff_factor", value)

    @staticmethod
    def _check_interval(value, op):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise InvalidParameterError(f"{op}: growth_interval must be an int > 0, got "
                                        f"{value!r}", "growth_interval", value)

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), _fresh_state())

    def _require_scale(self, op):
        if self._scale is None:
            raise GraphError(f"Attempted {op} but _scale is None.  This may indicate your script "
                             "did not use scaler.scale(loss or outputs) earlier in the "
                             "iteration.")

    def scale(self, outputs):
        """``outputs`` (a tensor, or a list / tuple / iterable of them, nested) multiplied by
        the current scale; unchanged when disabled.

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu", init_scale=4.0).scale([torch.ones(1)])[0].tolist()
        [4.0]
        """
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._scale = full((), self._init_scale, dtype=float32, device=outputs._device)
                self._growth_tracker = self._init_growth_tracker
            return outputs * self._scale.to(outputs._device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(v) for v in outputs)
        if hasattr(outputs, "__iter__") and not isinstance(outputs, (str, bytes, dict)):
            return map(self.scale, outputs)
        raise InvalidParameterError("outputs must be a Tensor or an iterable of Tensors, got "
                                    f"{type(outputs).__name__}", "outputs", outputs)

    def _unscale_grads_(self, optimizer, inv_scale, allow_fp16):
        """Multiply every gradient of ``optimizer`` by ``inv_scale``; returns {device: 1.0 if
        any of that device's gradients is inf or NaN else 0.0} (0-d float32 tensors)."""
        found = {}
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if not allow_fp16 and g._dtype is float16:
                        raise InvalidParameterError("Attempting to unscale FP16 gradients.",
                                                    "optimizer", optimizer)
                    bad = (~g.isfinite()).any().to(float32)
                    key = str(g._device)
                    found[key] = bad if key not in found else found[key].maximum(bad)
                    rebind(g, (g * inv_scale.to(g._device)).to(g._dtype), "unscale_")
        return found

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (once per iteration, before
        ``step``), recording whether any is inf or NaN; for clipping scaled gradients.

        >>> import ember.torch as torch
        >>> w = torch.nn.Parameter(torch.ones(1)); opt = torch.optim.SGD([w], lr=1.0)
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
        >>> scaler.scale(w.sum()).backward(); scaler.unscale_(opt); w.grad.tolist()
        [1.0]
        """
        if not self._enabled:
            return
        self._require_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] == OptState.UNSCALED:
            raise GraphError("unscale_() has already been called on this optimizer since the "
                             "last update().")
        if state["stage"] == OptState.STEPPED:
            raise GraphError("unscale_() is being called after step().")
        inv_scale = self._scale.to(float64).reciprocal().to(float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``unscale_`` (unless done) then ``optimizer.step(*args, **kwargs)``, skipped when a
        gradient is inf or NaN; returns what ``step`` returned (None when skipped).

        >>> import ember.torch as torch
        >>> w = torch.nn.Parameter(torch.ones(1)); opt = torch.optim.SGD([w], lr=1.0)
        >>> scaler = torch.amp.GradScaler("cpu")
        >>> scaler.scale(w.sum() * float("inf")).backward(); scaler.step(opt); w.tolist()
        [1.0]
        """
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise GraphError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_scale("step")
        state = self._state(optimizer)
        if state["stage"] == OptState.STEPPED:
            raise GraphError("step() has already been called since the last update().")
        if state["stage"] == OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise GraphError("No inf checks were recorded for this optimizer: none of its "
                             "parameters has a gradient.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """End the iteration: the scale backs off after an overflow in any optimizer's
        gradients, grows after ``growth_interval`` clean iterations (unless that overflows
        float32), or becomes ``new_scale`` (a number or a one-element tensor) when given.

        >>> import ember.torch as torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
        >>> _ = scaler.scale(torch.ones(1)); scaler.update(2.0); scaler.get_scale()
        2.0
        """
        if not self._enabled:
            return
        self._require_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise InvalidParameterError(
                        "new_scale should be a float or a 1-element torch.FloatTensor with "
                        "requires_grad=False.", "new_scale", new_scale)
                value = new_scale.detach().reshape(()).to(float32)
            else:
                value = full((), _number(new_scale, "update", "new_scale"), dtype=float32,
                             device=self._scale._device)
            rebind(self._scale, value, "update")
        else:
            found = [v for s in self._per_optimizer_states.values()
                     for v in s["found_inf_per_device"].values()]
            if not found:
                raise GraphError("No inf checks were recorded prior to update().")
            # the new scale is computed in double precision and stored as float32, as PyTorch's
            if sum(v.item() for v in found):
                self._set_scale(self._scale.item() * self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = self._scale.item() * self._growth_factor
                    if _fits_float32(grown):
                        self._set_scale(grown)
                    self._growth_tracker = 0
        self._per_optimizer_states = {}

    def _set_scale(self, value):
        """Make the scale the float32 nearest ``value`` (a number)."""
        rebind(self._scale, full((), value, dtype=float32, device=self._scale._device),
               "update")

    def get_scale(self):
        """The current scale, a float (1.0 when disabled).

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu").get_scale()
        65536.0
        """
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        """The factor the scale grows by.

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu").get_growth_factor()
        2.0
        """
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the factor the scale grows by (> 1).

        >>> import ember.torch as torch
        >>> s = torch.amp.GradScaler("cpu"); s.set_growth_factor(4.0); s.get_growth_factor()
        4.0
        """
        self._check_growth(new_factor, "set_growth_factor")
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        """The factor the scale backs off by.

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu").get_backoff_factor()
        0.5
        """
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the factor the scale backs off by (< 1).

        >>> import ember.torch as torch
        >>> s = torch.amp.GradScaler("cpu"); s.set_backoff_factor(0.25); s.get_backoff_factor()
        0.25
        """
        self._check_backoff(new_factor, "set_backoff_factor")
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        """How many clean iterations in a row make the scale grow.

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu").get_growth_interval()
        2000
        """
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set how many clean iterations in a row make the scale grow (an int > 0).

        >>> import ember.torch as torch
        >>> s = torch.amp.GradScaler("cpu"); s.set_growth_interval(5); s.get_growth_interval()
        5
        """
        self._check_interval(new_interval, "set_growth_interval")
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else \
            self._growth_tracker

    def is_enabled(self):
        """Whether the scaler scales (False after the CUDA-less fallback or ``enabled=False``).

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu", enabled=False).is_enabled()
        False
        """
        return self._enabled

    def state_dict(self):
        """``{"scale", "growth_factor", "backoff_factor", "growth_interval",
        "_growth_tracker"}`` (empty when disabled), as PyTorch's.

        >>> import ember.torch as torch
        >>> torch.amp.GradScaler("cpu", init_scale=8.0).state_dict()["scale"]
        8.0
        """
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restore what ``state_dict`` returned (ignored when disabled).

        >>> import ember.torch as torch
        >>> a = torch.amp.GradScaler("cpu", init_scale=4.0)
        >>> b = torch.amp.GradScaler("cpu"); b.load_state_dict(a.state_dict()); b.get_scale()
        4.0
        """
        if not self._enabled:
            return
        if not isinstance(state_dict, dict):
            raise KindError(f"load_state_dict: state_dict must be a dict, got "
                            f"{type(state_dict).__name__}")
        if len(state_dict) == 0:
            raise InvalidParameterError("The source state dict is empty, possibly because it was "
                                        "saved from a disabled instance of GradScaler.",
                                        "state_dict", state_dict)
        missing = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                   "_growth_tracker"} - set(state_dict)
        if missing:
            raise InvalidParameterError(f"load_state_dict: state_dict lacks {sorted(missing)}",
                                        "state_dict", state_dict)
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._set_scale(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker = self._init_growth_tracker

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if self._per_optimizer_states:
                raise GraphError("A GradScaler instance may only be pickled at the beginning of "
                                 "an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

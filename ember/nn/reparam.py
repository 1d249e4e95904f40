"""Burn's Module API for reparameterizations (LoRA, QLoRA) and weight quantization; the Module
methods ``apply_reparameterization``, ``reparameterized``, ``materialize``, ``apply_lora``,
``apply_qlora``, ``quantize_weights`` and ``quantize_weights_group`` are defined here.
- ``Reparameterization``: a Module whose ``forward(base)`` gives the effective tensor of a
  parameter, attached as ``torch.nn.utils.parametrize`` does (``module.weight`` computes it;
  the stored tensor is ``module.parametrizations.weight.original``).
- ``Lora`` / ``QLora``: low-rank adapters ``W + (alpha / rank) * B @ A`` on 2-D float weights.
- ``Quantizer``: how ``quantize_weights`` quantizes (``quantize_dynamic`` with a QuantScheme).

>>> import ember
>>> from ember import nn
>>> ember.manual_seed(0)
>>> model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
>>> _ = model.apply_lora(nn.Lora(rank=2))
>>> [n for n, p in model.named_parameters() if p.is_require_grad()]
['0.parametrizations.weight.0.lora_A', '0.parametrizations.weight.0.lora_B', \
'2.parametrizations.weight.0.lora_A', '2.parametrizations.weight.0.lora_B']
>>> type(model[0]).__name__, type(model.materialize()[0]).__name__
('ParametrizedLinear', 'Linear')
"""

import math
import warnings
from collections import OrderedDict

from ..autodiff.graph import no_grad
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..ops.quantization import QuantizedTensor, QuantScheme
from .._tensor import Tensor
from .containers import ModuleDict, ModuleList
from .module import Module, _shape_str, module_method
from .records import _become_quantized, _type_name, assign, check_group

__all__ = ["Reparameterization", "ParametrizationList",
           "LoraAdapter", "Lora", "QLora", "Quantizer"]


class Reparameterization(Module):
    """A parameter's reparameterization: a Module whose ``forward(base)`` returns the effective
    tensor (same shape and dtype as ``base``); its own parameters train with the model.

    Attach it with ``module.apply_reparameterization(fn)``, where ``fn(module_name, module,
    param_name, tensor)`` returns a Reparameterization or None for each parameter.

    >>> import ember
    >>> from ember import nn
    >>> class Scaled(nn.Reparameterization):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = nn.Parameter(ember.tensor(2.0))
    ...     def forward(self, base):
    ...         return base * self.scale
    >>> m = nn.Linear(1, 1, bias=False)
    >>> _ = m.load_state_dict({"weight": [[1.5]]})
    >>> _ = m.apply_reparameterization(lambda mn, mod, pn, t: Scaled() if pn == "weight" else None)
    >>> m.weight.tolist(), m(ember.ones(1, 1)).tolist()
    ([[3.0]], [[3.0]])
    >>> list(m.state_dict())
    ['parametrizations.weight.original', 'parametrizations.weight.0.scale']
    """

    def forward(self, base):
        """The effective tensor computed from ``base`` (subclasses define it).

        >>> import ember
        >>> from ember import nn
        >>> nn.Reparameterization().forward(ember.ones(1))
        Traceback (most recent call last):
        ...
        NotImplementedError: Reparameterization: forward(base) is not defined; define it in the subclass
        """
        raise NotImplementedError(f"{type(self).__name__}: forward(base) is not defined; define "
                                  "it in the subclass")


class ParametrizationList(ModuleList):
    """The reparameterizations of one parameter, applied in order to ``original`` (the stored
    tensor), as ``torch.nn.utils.parametrize``'s ParametrizationList.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 2).apply_lora(nn.Lora(1))
    >>> plist = m.parametrizations["weight"]
    >>> plist.original is m.parametrizations.weight.original, len(plist)
    (True, 1)
    """

    def __init__(self, original, reparams=()):
        super().__init__(reparams)
        self.original = original

    def effective(self):
        """``original`` through every reparameterization, in order (recorded in the graph).

        >>> from ember import nn
        >>> m = nn.Linear(2, 2).apply_lora(nn.Lora(1))
        >>> m.parametrizations["weight"].effective().shape
        (2, 2)
        """
        x = self.original
        for r in self._modules:  # one step per stacked reparameterization (a handful)
            x = r(x)
        return x


class _ParametrizationDict(ModuleDict):
    """``module.parametrizations``: name -> ParametrizationList, also as attributes
    (``module.parametrizations.weight.original``, as PyTorch)."""

    def __getattr__(self, name):
        mods = self.__dict__.get("_modules")
        if mods is None or name.startswith("_") or name not in mods:
            raise AttributeError(f"parametrizations has no reparameterized tensor {name!r}")
        return mods[name]

    def __repr__(self):
        return "ModuleDict" + Module.__repr__(self)[len(type(self).__name__):]


def _effective_property(name):
    def get(self):
        return self.__dict__["parametrizations"]._modules[name].effective()

    def set(self, value):
        raise InvalidParameterError(
            f"{type(self).__name__}: {name!r} is reparameterized; set its stored tensor "
            f"(parametrizations.{name}.original) or call materialize() first", name, value)

    return property(get, set, doc=f"The effective {name!r}: its reparameterizations applied.")


def _targets(root):
    """(module name, module, param name, tensor) for every parameter that can be
    reparameterized: a float tensor held directly as an attribute, or the stored tensor of an
    already reparameterized one. The reparameterization machinery itself (ParametrizationList,
    Reparameterization modules, ``parametrizations``) is skipped."""
    out, seen, stack = [], set(), [("", root)]
    while stack:
        pre, mod = stack.pop()
        if id(mod) in seen or isinstance(mod, (ParametrizationList, Reparameterization)):
            continue
        seen.add(id(mod))
        params, _, children = mod._local_split()
        for name, path, t in params:
            if len(path) == 1:
                out.append((pre, mod, name, t))
        plists = mod.__dict__.get("parametrizations") if _is_parametrized(mod) else None
        if plists is not None:
            for name, plist in plists._modules.items():
                out.append((pre, mod, name, plist))  # a ParametrizationList: stack onto it
        kids = [(f"{pre}.{n}" if pre else n, c) for n, _, c in children
                if c is not plists]
        stack.extend(reversed(kids))
    return out


def _is_parametrized(mod):
    return getattr(type(mod), "_reparam_base", None) is not None


def plan_reparameterization(root, reparameterizer, op):
    """Call ``reparameterizer`` for every target and check each result (a Reparameterization
    whose forward keeps shape and dtype); nothing changes. Returns (module, name, base, r)."""
    if not callable(reparameterizer):
        raise InvalidParameterError(
            f"{op}: reparameterizer must be callable (module_name, module, param_name, tensor) "
            f"-> Reparameterization or None, got {_type_name(reparameterizer)}",
            "reparameterizer", reparameterizer)
    plan = []
    for pre, mod, name, t in _targets(root):
        full = f"{pre}.{name}" if pre else name
        base = t.original if isinstance(t, ParametrizationList) else t
        r = reparameterizer(pre, mod, name, base)
        if r is None:
            continue
        if not isinstance(r, Reparameterization):
            raise InvalidParameterError(
                f"{op}: the reparameterizer returned a {_type_name(r)} for {full!r}; expected a "
                "Reparameterization (a Module with forward(base)) or None", "reparameterizer", r)
        current = t.effective() if isinstance(t, ParametrizationList) else t
        with no_grad():
            out = r(current)
        if not isinstance(out, Tensor):
            raise InvalidParameterError(
                f"{op}: {type(r).__name__}.forward returned a {_type_name(out)} for {full!r}; "
                "expected a Tensor", "reparameterizer", r)
        if tuple(out.shape) != tuple(current.shape):
            raise ShapeMismatchError(
                f"{op}: {type(r).__name__} gives shape {_shape_str(tuple(out.shape))} for "
                f"{full!r}; expected its shape {_shape_str(tuple(current.shape))}",
                expected=tuple(current.shape), actual=tuple(out.shape))
        if out._dtype is not current._dtype:
            raise KindError(f"{op}: {type(r).__name__} gives dtype {out._dtype.name} for "
                            f"{full!r}; expected its dtype {current._dtype.name}")
        plan.append((mod, name, t, r))
    return plan


def install(plan):
    """Attach each planned reparameterization (no checks: ``plan_reparameterization`` did).

    Each reparameterized module gets a class of its own (a fresh subclass of its original
    class with one property per reparameterized name), so copies (``valid()``, deepcopy) that
    share a class never see each other's properties."""
    touched = {}
    for mod, name, t, r in plan:
        if isinstance(t, ParametrizationList):
            t.append(r)
            continue
        if not _is_parametrized(mod) and "parametrizations" not in mod.__dict__:
            mod._reparam_order = list(mod.__dict__)  # to restore the attribute order later
            mod.__dict__["parametrizations"] = _ParametrizationDict()
        plists = mod.__dict__["parametrizations"]
        del mod.__dict__[name]
        plists[name] = ParametrizationList(t, [r])
        touched[id(mod)] = mod
    for mod in touched.values():
        base = getattr(type(mod), "_reparam_base", None) or type(mod)
        attrs = {"_reparam_base": base, "__module__": base.__module__}
        for name in mod.__dict__["parametrizations"]._modules:
            attrs[name] = _effective_property(name)
        mod.__class__ = type(f"Parametrized{base.__name__}", (base,), attrs)


def _materialize(root):
    """Fold every reparameterization under ``root`` into its stored tensor (the same object,
    rebound to the effective value) and restore the plain attributes and classes."""
    mods = [m for _, m in root.named_modules() if _is_parametrized(m)]
    for mod in reversed(mods):  # deepest first: nested reparameterizations fold inward first
        plists = mod.__dict__["parametrizations"]
        values = {}
        for name, plist in plists._modules.items():
            with no_grad():
                eff = plist.effective()
            original = plist.original
            assign(original, eff if eff.__class__ is not QuantizedTensor else eff.dequantize())
            values[name] = original
        d = mod.__dict__
        del d["parametrizations"]
        d.update(values)
        order = d.pop("_reparam_order")
        items = [(k, d[k]) for k in order if k in d] + [(k, v) for k, v in d.items()
                                                        if k not in order]
        d.clear()
        d.update(items)
        mod.__class__ = type(mod)._reparam_base
    return root


def _reparameterized(root):
    """full name -> tuple of Reparameterizations, for every reparameterized parameter."""
    out = OrderedDict()
    for pre, mod in root.named_modules():
        if _is_parametrized(mod):
            for name, plist in mod.__dict__["parametrizations"]._modules.items():
                out[f"{pre}.{name}" if pre else name] = tuple(plist._modules)
    return out


# -- LoRA and QLoRA -----------------------------------------------------------------------------

def _positive_int(value, op, param):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{op}: {param} must be an int >= 1, got {value!r}", param,
                                    value)
    return value


class LoraAdapter(Reparameterization):
    """The LoRA reparameterization of one 2-D weight ``W`` (out, in): ``W + scaling * B @ A``
    with ``lora_A`` (rank, in) from kaiming-uniform (``a=sqrt(5)``, as PEFT) and ``lora_B``
    (out, rank) zeros, so the effective weight starts equal to ``W``. Both require grad.

    >>> import ember
    >>> from ember import nn
    >>> ad = nn.LoraAdapter((3, 4), rank=2, scaling=0.5)
    >>> ad.lora_A.shape, ad.lora_B.shape, ad.lora_B.abs().sum().item()
    ((2, 4), (3, 2), 0.0)
    >>> bool((ad(ember.ones(3, 4)) == 1).all())
    True
    """

    def __init__(self, shape, rank, scaling=1.0, dtype=None, device=None):
        super().__init__()
        from . import init
        out_f, in_f = shape
        self.rank = rank
        self.scaling = float(scaling)
        self.lora_A = init.kaiming_uniform((rank, in_f), a=math.sqrt(5), dtype=dtype,
                                           device=device)
        self.lora_B = init.zeros((out_f, rank), dtype=dtype, device=device)

    def forward(self, base):
        """``base + scaling * lora_B @ lora_A``.

        >>> import ember
        >>> from ember import nn
        >>> nn.LoraAdapter((1, 1), rank=1)(ember.ones(1, 1)).tolist()
        [[1.0]]
        """
        return base + (self.lora_B @ self.lora_A) * self.scaling

    def extra_repr(self):
        return f"rank={self.rank}, scaling={self.scaling}"


class Lora:
    """LoRA's configuration (Burn's ``Lora``), a reparameterizer: for each 2-D float parameter
    (each in ``targets`` too, when given) it returns a ``LoraAdapter`` computing
    ``W + (alpha / rank) * B @ A``. ``alpha=None`` means ``alpha = rank`` (scaling 1).

    ``module.apply_lora(lora)`` freezes all of the module's parameters (biases and norms too,
    as Burn) and attaches the trainable adapters; only ``lora_A`` and ``lora_B`` then train.
    Conv kernels (4-D) and 1-D tensors are never adapted; ``targets`` narrows the 2-D ones.

    >>> import ember
    >>> from ember import nn
    >>> lora = nn.Lora(rank=4, alpha=8, targets=nn.ParamGroup("fc1.*", strict=False))
    >>> lora, lora.scaling
    (Lora(rank=4, alpha=8, targets=ParamGroup('fc1.*', strict=False)), 2.0)
    """

    _op = "Lora"

    def __init__(self, rank, alpha=None, targets=None):
        _positive_int(rank, self._op, "rank")
        if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))
                                  or not math.isfinite(alpha) or alpha <= 0):
            raise InvalidParameterError(
                f"{self._op}: alpha must be a finite number > 0 or None, got {alpha!r}", "alpha",
                alpha)
        if targets is not None:
            check_group(targets, self._op)
        self.rank = rank
        self.alpha = rank if alpha is None else alpha
        self.targets = targets

    @property
    def scaling(self):
        """``alpha / rank``."""
        return self.alpha / self.rank

    def _wanted(self, root):
        """The full names this config adapts in ``root`` (checks ``targets``)."""
        entries = [((f"{pre}.{name}" if pre else name), pre, mod, name,
                    t.original if isinstance(t, ParametrizationList) else t)
                   for pre, mod, name, t in _targets(root)]
        if self.targets is not None:
            entries = self.targets._select(entries, "parameter", f"apply_{self._op.lower()}")
        return {e[0] for e in entries if e[-1].ndim == 2 and e[-1]._dtype.kind == "float"}

    def __call__(self, module_name, module, param_name, tensor):
        full = f"{module_name}.{param_name}" if module_name else param_name
        wanted = getattr(self, "_selected", None)
        if wanted is not None:
            if full not in wanted:
                return None
        elif tensor.ndim != 2 or tensor._dtype.kind != "float" or (
                self.targets is not None and not self.targets.matches(full, tensor)):
            return None
        return LoraAdapter(tuple(tensor.shape), self.rank, self.scaling, dtype=tensor._dtype,
                           device=tensor._device)

    def __repr__(self):
        t = "" if self.targets is None else f", targets={self.targets!r}"
        return f"{type(self).__name__}(rank={self.rank}, alpha={self.alpha}{t})"


class QLora(Lora):
    """QLoRA (Burn's ``QLora``): LoRA whose frozen base weights are quantized first, with
    ``quantize_dynamic(scheme)`` (``scheme``: a QuantScheme, default q8s per tensor). Only the
    adapted 2-D weights are quantized (as the QLoRA paper); biases and norms stay float.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(4, 2).apply_qlora(nn.QLora(rank=2, scheme=ember.QuantScheme("q4s")))
    >>> m.parametrizations["weight"].original.is_quantized, m.weight.is_quantized
    (True, False)
    """

    _op = "QLora"

    def __init__(self, rank, alpha=None, scheme=None, targets=None):
        super().__init__(rank, alpha, targets)
        if scheme is None:
            scheme = QuantScheme.default()
        if not isinstance(scheme, QuantScheme):
            raise InvalidParameterError(
                f"QLora: scheme must be a QuantScheme, got {_type_name(scheme)} {scheme!r}",
                "scheme", scheme)
        self.scheme = scheme

    def __repr__(self):
        return super().__repr__()[:-1] + f", scheme={self.scheme!r})"


def _apply_lora(root, lora, op):
    """Plan, freeze everything, quantize the bases (QLoRA), install; a no-op (with a warning)
    when no parameter is adapted."""
    cls = QLora if op == "apply_qlora" else Lora
    if not isinstance(lora, cls):
        raise InvalidParameterError(
            f"{op}: the argument must be a {cls.__name__}, got {_type_name(lora)} {lora!r}",
            cls.__name__.lower(), lora)
    lora._selected = lora._wanted(root)
    try:
        plan = plan_reparameterization(root, lora, op)
    finally:
        lora._selected = None
    if not plan:
        warnings.warn(f"{op}: the module has no 2-D float weight to adapt; it is unchanged",
                      UserWarning, stacklevel=3)
        return root
    quantized = []
    if isinstance(lora, QLora):
        for mod, name, t, r in plan:
            base = t.original if isinstance(t, ParametrizationList) else t
            if base.__class__ is not QuantizedTensor:
                quantized.append((base, _quantize_named(lora.scheme, base, name, op)))
    root.freeze()
    for base, q in quantized:
        _become_quantized(base, q)
    install(plan)
    return root


# -- quantization -------------------------------------------------------------------------------

class Quantizer:
    """How ``quantize_weights`` quantizes (Burn's ``Quantizer``): ``scheme`` (a QuantScheme,
    default q8s per tensor) and ``calibration``, the way scales are found: ``"minmax"`` (the
    only one: ``quantize_dynamic``, ``scale = max|x| / hi`` per tensor or block).

    >>> import ember
    >>> from ember import nn
    >>> q = nn.Quantizer(ember.QuantScheme("q4s"))
    >>> q.quantize(ember.tensor([1.0, -7.0])).int_repr().tolist()
    [1, -7]
    """

    __slots__ = ("scheme", "calibration")

    def __init__(self, scheme=None, calibration="minmax"):
        if scheme is None:
            scheme = QuantScheme.default()
        if not isinstance(scheme, QuantScheme):
            raise InvalidParameterError(
                f"Quantizer: scheme must be a QuantScheme, got {_type_name(scheme)} {scheme!r}",
                "scheme", scheme)
        if calibration != "minmax":
            raise InvalidParameterError(
                f"Quantizer: calibration {calibration!r} is not known; expected 'minmax'",
                "calibration", calibration)
        self.scheme = scheme
        self.calibration = calibration

    def quantize(self, tensor):
        """``tensor`` quantized with this quantizer's scheme and calibration.

        >>> import ember
        >>> from ember import nn
        >>> nn.Quantizer().quantize(ember.tensor([0.5, -1.0])).int_repr().tolist()
        [64, -127]
        """
        return tensor.quantize_dynamic(self.scheme)

    def __eq__(self, other):
        return (isinstance(other, Quantizer) and self.scheme == other.scheme
                and self.calibration == other.calibration)

    def __hash__(self):
        return hash((self.scheme, self.calibration))

    def __repr__(self):
        return f"Quantizer(scheme={self.scheme!r}, calibration={self.calibration!r})"


def _quantize_named(scheme, t, name, op):
    """``t.quantize_dynamic(scheme)``, its errors naming ``op`` and the parameter."""
    try:
        return t.quantize_dynamic(scheme)
    except ShapeMismatchError as exc:
        raise ShapeMismatchError(f"{op}: parameter {name!r}: {exc}", exc.expected,
                                 exc.actual) from None
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{op}: parameter {name!r}: {exc}", exc.param,
                                    exc.value) from None


def _quantize_weights(root, quantizer, group, op):
    """Quantize the float parameters ``group`` (checked) selects (None: those with ndim >= 2), every one
    before any is replaced; each keeps its object and becomes a frozen QuantizedTensor."""
    if not isinstance(quantizer, Quantizer):
        raise InvalidParameterError(
            f"{op}: quantizer must be a Quantizer, got {_type_name(quantizer)} {quantizer!r}",
            "quantizer", quantizer)
    slots = [(n, t) for n, _, _, t in root._slots("param")]
    if group is None:
        chosen = [(n, t) for n, t in slots if t.ndim >= 2]
    else:
        chosen = group._select(slots, "parameter", op)
    new = [(t, _quantize_named(quantizer.scheme, t, name, op)) for name, t in chosen]
    for t, q in new:
        _become_quantized(t, q)
    return root


@module_method
def apply_reparameterization(self, reparameterizer):
    """Attach reparameterizations (Burn's ``apply_reparameterization``, PyTorch's
    ``parametrize.register_parametrization``); returns self.

    ``reparameterizer(module_name, module, param_name, tensor)`` is called for every float
    parameter held directly as a module attribute (not inside a list or dict), and returns a
    ``Reparameterization`` or None. For each result the module's class becomes a generated
    subclass (``ParametrizedLinear``) whose ``param_name`` is a property giving
    ``reparameterization(original)``, recorded in the graph; the stored tensor is
    ``parametrizations.<name>.original``, the reparameterization
    ``parametrizations.<name>.0`` (PyTorch's names). A parameter already reparameterized
    gets the new one stacked after (``.1``). Every result is computed once and checked
    (same shape and dtype) before any module changes. ``materialize()`` undoes it.

    >>> import ember
    >>> from ember import nn
    >>> class Double(nn.Reparameterization):
    ...     def forward(self, base):
    ...         return base * 2
    >>> m = nn.Linear(1, 1).apply_reparameterization(
    ...     lambda mod_name, mod, name, t: Double() if name == "weight" else None)
    >>> bool((m.weight == m.parametrizations.weight.original * 2).all()), type(m).__name__
    (True, 'ParametrizedLinear')
    """
    install(plan_reparameterization(self, reparameterizer, "apply_reparameterization"))
    return self


@module_method
def reparameterized(self):
    """An ordered dict: the full name of every reparameterized parameter -> the tuple of
    its reparameterizations (empty when there are none).

    >>> from ember import nn
    >>> list(nn.Sequential(nn.Linear(2, 2)).apply_lora(nn.Lora(1)).reparameterized())
    ['0.weight']
    """
    return _reparameterized(self)


@module_method
def materialize(self):
    """Fold every reparameterization into its effective value and remove it (Burn's
    ``materialize``, PyTorch's ``remove_parametrizations(leave_parametrized=True)``); returns
    self. The stored tensor (``parametrizations.<name>.original``) becomes the attribute
    again, the same object with the effective value (a quantized one becomes a plain float
    tensor) and its require-grad kept (frozen after ``apply_lora``); the module gets its
    class and its attribute order back. A module without reparameterizations is unchanged.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 2).apply_lora(nn.Lora(1))
    >>> x = ember.ones(1, 2)
    >>> y = m(x)
    >>> plain = m.materialize()
    >>> type(plain).__name__, list(plain.state_dict()), bool((plain(x) == y).all())
    ('Linear', ['weight', 'bias'], True)
    """
    return _materialize(self)


@module_method
def apply_lora(self, lora):
    """Attach LoRA adapters (``Lora``) to the module's 2-D float weights, freezing all of
    its parameters first (Burn's ``apply_lora``); returns self. Each adapted weight becomes
    ``W + (alpha / rank) * lora_B @ lora_A`` (``parametrizations.weight.0.lora_A`` ...),
    only ``lora_A`` and ``lora_B`` require grad. A module with no 2-D float weight (or none
    in ``lora.targets``) is left unchanged, nothing frozen, with a UserWarning.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(3, 2).apply_lora(nn.Lora(rank=2, alpha=4))
    >>> [n for n, p in m.named_parameters() if p.is_require_grad()]
    ['parametrizations.weight.0.lora_A', 'parametrizations.weight.0.lora_B']
    """
    return _apply_lora(self, lora, "apply_lora")


@module_method
def apply_qlora(self, qlora):
    """QLoRA (``QLora``): ``apply_lora`` whose adapted base weights are also quantized
    (``quantize_dynamic`` with ``qlora.scheme``; frozen QuantizedTensors, the same objects);
    returns self.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(4, 2).apply_qlora(nn.QLora(rank=1))
    >>> m.parametrizations.weight.original.is_quantized, m.bias.is_quantized
    (True, False)
    """
    return _apply_lora(self, qlora, "apply_qlora")


@module_method
def quantize_weights(self, quantizer):
    """Quantize the module's weights (Burn's ``quantize_weights``): every float parameter
    with 2 or more dims (Linear, Conv, Embedding weights; biases and norm scales stay float,
    as PyTorch's dynamic quantization) becomes a QuantizedTensor by ``quantizer`` (the same
    object; frozen: no gradient through rounding). Every tensor is quantized before any is
    replaced, so an error (a block size that does not divide a weight) changes nothing.
    Returns self.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(4, 2).quantize_weights(nn.Quantizer())
    >>> m.weight.is_quantized, m.weight.is_require_grad(), m.bias.is_quantized
    (True, False, False)
    """
    return _quantize_weights(self, quantizer, None, "quantize_weights")


@module_method
def quantize_weights_group(self, quantizer, group):
    """``quantize_weights`` for the float parameters in ``group`` (a ``ParamGroup``), every
    one it names, 1-D ones included; returns self.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(4, 2).quantize_weights_group(nn.Quantizer(), nn.ParamGroup("bias"))
    >>> m.weight.is_quantized, m.bias.is_quantized
    (False, True)
    """
    return _quantize_weights(self, quantizer, check_group(group, "quantize_weights_group"),
                            "quantize_weights_group")

"""ember.torch.distributions.transforms and the biject_to/transform_to registries against
PyTorch: forward, inverse, log_abs_det_jacobian (values and gradients, float64), shapes,
constraints, caching, equality; and log-determinants against Jacobians from autodiff."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check

RNG = np.random.default_rng(7)


def _arr(*shape, low=-2.0, high=2.0):
    return np.asarray(RNG.uniform(low, high, shape))


# name -> (factory(module) building the transform, input maker(shape), shapes)
LOC = _arr(3)
SCALE = _arr(3, low=0.5, high=2.0) * np.array([1, -1, 1])
EXPONENT = _arr(3, low=0.5, high=2.5)
UNIVARIATE = [(), (3,), (2, 3), (2, 0)]
VECTOR = [(4,), (2, 4), (0, 4)]
TRANSFORMS = {
    "Exp": (lambda m: m.distributions.ExpTransform(), _arr, UNIVARIATE),
    "Sigmoid": (lambda m: m.distributions.SigmoidTransform(), _arr, UNIVARIATE),
    "Tanh": (lambda m: m.distributions.TanhTransform(), _arr, UNIVARIATE),
    "Softplus": (lambda m: m.distributions.SoftplusTransform(), _arr, UNIVARIATE),
    "Power": (lambda m: m.distributions.PowerTransform(m.tensor(EXPONENT)),
              lambda *s: _arr(*s, low=0.2, high=2.0), [(3,), (2, 3)]),
    "PowerScalar": (lambda m: m.distributions.PowerTransform(-1.5),
                    lambda *s: _arr(*s, low=0.2, high=2.0), UNIVARIATE),
    "Affine": (lambda m: m.distributions.AffineTransform(m.tensor(LOC), m.tensor(SCALE)), _arr,
               [(3,), (2, 3)]),
    "AffineNumbers": (lambda m: m.distributions.AffineTransform(0.5, -2.0), _arr, UNIVARIATE),
    "AffineEvent": (lambda m: m.distributions.AffineTransform(m.tensor(LOC), m.tensor(SCALE),
                                                             event_dim=1), _arr,
                    [(3,), (2, 3)]),
    "AffineEventNumbers": (lambda m: m.distributions.AffineTransform(1.0, 3.0, event_dim=2),
                           _arr, [(2, 3), (4, 2, 3)]),
    "StickBreaking": (lambda m: m.distributions.StickBreakingTransform(), _arr, VECTOR),
    "CorrCholesky": (lambda m: m.distributions.CorrCholeskyTransform(), _arr,
                     [(6,), (2, 3), (2, 1), (0, 6)]),
    "Reshape": (lambda m: m.distributions.ReshapeTransform((2, 3), (3, 2)), _arr,
                [(2, 3), (4, 2, 3)]),
    "Independent": (lambda m: m.distributions.IndependentTransform(
        m.distributions.ExpTransform(), 2), _arr, [(2, 3), (4, 2, 3)]),
    "Compose": (lambda m: m.distributions.ComposeTransform(
        [m.distributions.AffineTransform(0.5, 2.0), m.distributions.SigmoidTransform(),
         m.distributions.PowerTransform(2.0)]), _arr, UNIVARIATE),
    "ComposeEvents": (lambda m: m.distributions.ComposeTransform(
        [m.distributions.ExpTransform(), m.distributions.StickBreakingTransform()]), _arr,
        [(4,), (2, 4)]),  # PyTorch cannot sum the Jacobian terms of size-0 batches here
    "ComposeReshape": (lambda m: m.distributions.ComposeTransform(
        [m.distributions.ReshapeTransform((2, 2), (4,)), m.distributions.TanhTransform()]),
        _arr, [(2, 2), (3, 2, 2)]),
    "Identity": (lambda m: m.distributions.identity_transform, _arr, UNIVARIATE),
    "InverseExp": (lambda m: m.distributions.ExpTransform().inv,
                   lambda *s: _arr(*s, low=0.1, high=3.0), UNIVARIATE),
    "InverseStick": (lambda m: m.distributions.StickBreakingTransform().inv,
                     lambda *s: _simplex(*s), [(5,), (2, 5)]),
    "Cat": (lambda m: m.distributions.CatTransform(
        [m.distributions.ExpTransform(), m.distributions.AffineTransform(1.0, 2.0)], dim=1,
        lengths=[2, 3]), _arr, [(2, 5), (3, 5)]),
    "CatEvents": (lambda m: m.distributions.CatTransform(
        [m.distributions.AffineTransform(0.5, -2.0, event_dim=1),
         m.distributions.ExpTransform()], dim=-1,
        lengths=[3, 2]), _arr, [(5,), (2, 5)]),
    "Stack": (lambda m: m.distributions.StackTransform(
        [m.distributions.ExpTransform(), m.distributions.TanhTransform()], dim=-1), _arr,
        [(2,), (3, 2)]),
    "StackDim0": (lambda m: m.distributions.StackTransform(
        [m.distributions.SigmoidTransform(), m.distributions.SoftplusTransform(),
         m.distributions.ExpTransform()], dim=0), _arr, [(3,), (3, 2)]),
    "CDF": (lambda m: m.distributions.CumulativeDistributionTransform(
        m.distributions.Normal(m.tensor(0.5, dtype=m.float64), m.tensor(2.0, dtype=m.float64))),
        _arr, UNIVARIATE),
}
NOT_BIJECTIVE = {
    "Abs": (lambda m: m.distributions.AbsTransform(), _arr, UNIVARIATE),
    "Softmax": (lambda m: m.distributions.SoftmaxTransform(), _arr, VECTOR),
    "LowerCholesky": (lambda m: m.distributions.LowerCholeskyTransform(), _arr,
                      [(3, 3), (2, 3, 3), (0, 2, 2)]),
    "PositiveDefinite": (lambda m: m.distributions.PositiveDefiniteTransform(), _arr,
                         [(3, 3), (2, 3, 3)]),
}


def _simplex(*shape):
    x = RNG.uniform(0.1, 1.0, shape)
    return np.asarray(x / x.sum(-1, keepdims=True))


def _cases(table):
    return [(name, shape) for name, (_, _, shapes) in table.items() for shape in shapes]


@pytest.mark.parametrize("name,shape", _cases(TRANSFORMS))
def test_bijection_forward_inverse_jacobian(name, shape):
    make, data, _ = TRANSFORMS[name]
    x = data(*shape)

    def f(m, x):
        t = make(m)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check(f, x, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name,shape", _cases(NOT_BIJECTIVE))
def test_non_bijective_forward_and_inverse(name, shape):
    make, data, _ = NOT_BIJECTIVE[name]
    x = data(*shape)

    def f(m, x):
        t = make(m)
        y = t(x)
        return y, t.inv(y)
    check(f, x, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(TRANSFORMS) + sorted(NOT_BIJECTIVE))
def test_attributes_match(name):
    make = {**TRANSFORMS, **NOT_BIJECTIVE}[name][0]
    shapes = {**TRANSFORMS, **NOT_BIJECTIVE}[name][2]
    te, tt = make(et), make(torch)
    assert repr(te) == repr(tt)
    assert te.bijective == tt.bijective
    assert repr(te.domain) == repr(tt.domain), (te.domain, tt.domain)
    assert repr(te.codomain) == repr(tt.codomain), (te.codomain, tt.codomain)
    assert te.domain.event_dim == tt.domain.event_dim
    assert te.codomain.event_dim == tt.codomain.event_dim
    for attr in ("sign", "event_dim"):
        try:
            want = getattr(tt, attr)
        except (NotImplementedError, ValueError) as exc:
            with pytest.raises(type(exc)):
                getattr(te, attr)
            continue
        got = getattr(te, attr)
        if isinstance(want, torch.Tensor):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        else:
            assert got == want
    for shape in shapes:
        fs = te.forward_shape(shape)
        assert tuple(fs) == tuple(tt.forward_shape(shape))
        assert tuple(te.inverse_shape(fs)) == tuple(tt.inverse_shape(fs))


def _autodiff_logdet(fn, x):
    """``log |det J|`` of ``fn`` at the vector ``x`` from ember's reverse-mode gradients, one
    output at a time."""
    x = x.detach().requires_grad_(True)
    y = fn(x)
    rows = [et.autograd.grad(y[i], x, retain_graph=True)[0] for i in range(y.shape[0])]
    jac = et.stack(rows)
    return et.linalg.slogdet(jac)[1]


@pytest.mark.parametrize("name", ["Exp", "Sigmoid", "Tanh", "Softplus", "PowerScalar",
                                  "AffineNumbers", "Compose", "CDF", "InverseExp"])
def test_univariate_jacobian_matches_autodiff(name):
    make, data, _ = TRANSFORMS[name]
    t = make(et)
    x = et.tensor(data(5))
    x.requires_grad_(True)
    y = t(x)
    (dy,) = et.autograd.grad(y.sum(), x)
    want = dy.abs().log().detach().numpy()
    got = t.log_abs_det_jacobian(x, y).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_stick_breaking_jacobian_matches_autodiff():
    t = et.distributions.StickBreakingTransform()
    x = et.tensor(_arr(4))
    # the map to the first K coordinates of the simplex is a bijection of R^K
    got = t.log_abs_det_jacobian(x, t(x)).item()
    want = _autodiff_logdet(lambda v: t(v)[:-1], x).item()
    assert abs(got - want) < 1e-9


def test_corr_cholesky_jacobian_matches_autodiff():
    t = et.distributions.CorrCholeskyTransform()
    x = et.tensor(_arr(6))
    got = t.log_abs_det_jacobian(x, t(x)).item()
    rows, cols = np.tril_indices(4, -1)
    want = _autodiff_logdet(lambda v: t(v)[rows.tolist(), cols.tolist()], x).item()
    assert abs(got - want) < 1e-9


def test_corr_cholesky_gives_correlation_factors():
    y = et.distributions.CorrCholeskyTransform()(et.tensor(_arr(5, 10)))
    corr = (y @ y.mT).numpy()
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    assert bool(et.distributions.constraints.corr_cholesky.check(y).all())


def test_inverse_is_cached_weakly_and_inverts_back():
    t = et.distributions.ExpTransform()
    inv = t.inv
    assert t.inv is inv and inv.inv is t
    assert inv == et.distributions.ExpTransform().inv
    assert repr(inv) == repr(torch.distributions.ExpTransform().inv)
    c = et.distributions.ComposeTransform([t, et.distributions.AffineTransform(1.0, 2.0)])
    assert c.inv.inv is c
    assert repr(c.inv) == repr(torch.distributions.ComposeTransform(
        [torch.distributions.ExpTransform(), torch.distributions.AffineTransform(1.0, 2.0)]).inv)


@pytest.mark.parametrize("cache_size", [0, 1])
def test_cache_of_the_last_pair(cache_size):
    t = et.distributions.TanhTransform(cache_size=cache_size)
    x = et.tensor(_arr(3))
    y = t(x)
    assert (t(x) is y) == (cache_size == 1)
    assert (t.inv(y) is x) == (cache_size == 1)
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), rtol=1e-12)


def test_with_cache():
    exp = et.distributions.ExpTransform()
    assert exp.with_cache(0) is exp
    assert exp.with_cache(1)._cache_size == 1 and exp.with_cache(1) == exp
    for t in (et.distributions.AffineTransform(1.0, 2.0), et.distributions.PowerTransform(2.0),
              et.distributions.ComposeTransform([exp]),
              et.distributions.IndependentTransform(exp, 1),
              et.distributions.ReshapeTransform((2,), (2, 1)), exp.inv):
        cached = t.with_cache(1)
        assert cached._cache_size == 1 and type(cached) is type(t) and repr(cached) == repr(t)
    compose = et.distributions.ComposeTransform([exp], cache_size=1)
    assert all(p._cache_size == 1 for p in compose.parts)


def test_equality_matches_pytorch():
    def pairs(m):
        d = m.distributions
        a = m.tensor([1.0, 2.0])
        return [(d.ExpTransform(), d.ExpTransform()), (d.ExpTransform(), d.SigmoidTransform()),
                (d.AffineTransform(1.0, 2.0), d.AffineTransform(1.0, 2.0)),
                (d.AffineTransform(1.0, 2.0), d.AffineTransform(1.0, 3.0)),
                (d.AffineTransform(a, 2.0), d.AffineTransform(a.clone(), 2.0)),
                (d.AffineTransform(1.0, 2.0, event_dim=1), d.AffineTransform(1.0, 2.0)),
                (d.PowerTransform(2.0), d.PowerTransform(2.0)),
                (d.PowerTransform(2.0), d.PowerTransform(3.0)),
                (d.ComposeTransform([d.ExpTransform()]), d.ComposeTransform([d.ExpTransform()])),
                (d.IndependentTransform(d.ExpTransform(), 1),
                 d.IndependentTransform(d.ExpTransform(), 1)),
                (d.IndependentTransform(d.ExpTransform(), 1),
                 d.IndependentTransform(d.ExpTransform(), 2)),
                (d.ExpTransform().inv, d.ExpTransform().inv), (d.ExpTransform().inv,
                                                              d.ExpTransform()),
                (d.StickBreakingTransform(), d.StickBreakingTransform()),
                (d.ReshapeTransform((2,), (2,)), d.ReshapeTransform((2,), (2,)))]
    got = [a == b for a, b in pairs(et)]
    want = [a == b for a, b in pairs(torch)]
    assert got == want
    assert [a != b for a, b in pairs(et)] == [not w for w in want]


def test_bad_arguments_raise_typed_errors():
    d = et.distributions
    with pytest.raises(InvalidParameterError):
        d.ExpTransform(cache_size=2)
    with pytest.raises(ShapeMismatchError):
        d.ReshapeTransform((2, 3), (5,))
    with pytest.raises(ShapeMismatchError):
        d.ReshapeTransform((2, 3), (6,)).forward_shape((3, 2))
    with pytest.raises(ShapeMismatchError):
        d.CorrCholeskyTransform().forward_shape((4,))
    with pytest.raises(ShapeMismatchError):
        d.CorrCholeskyTransform().inverse_shape((3, 4))
    with pytest.raises(KindError):
        d.ComposeTransform([d.ExpTransform(), 3])
    with pytest.raises(KindError):
        d.IndependentTransform(3, 1)
    with pytest.raises(InvalidParameterError):
        d.IndependentTransform(d.ExpTransform(), -1)
    with pytest.raises(ShapeMismatchError):
        d.IndependentTransform(d.ExpTransform(), 2)(et.zeros(3))
    with pytest.raises(InvalidParameterError):
        d.CatTransform([d.ExpTransform()], lengths=[1, 2])
    with pytest.raises(ShapeMismatchError):
        d.CatTransform([d.ExpTransform(), d.ExpTransform()], dim=0, lengths=[1, 2])(et.zeros(4))
    with pytest.raises(DimensionError):
        d.StackTransform([d.ExpTransform()], dim=2)(et.zeros(1))
    with pytest.raises(NotImplementedError):
        d.AbsTransform().log_abs_det_jacobian(et.zeros(1), et.zeros(1))
    with pytest.raises(NotImplementedError):
        d.Transform().sign


# -- biject_to / transform_to ------------------------------------------------------------------

def _constraints(m):
    c = m.distributions.constraints
    return {"real": c.real, "real_vector": c.real_vector, "positive": c.positive,
            "nonnegative": c.nonnegative, "greater_than": c.greater_than(m.tensor(
                [1.0, -2.0, 0.5], dtype=m.float64)), "greater_than_eq": c.greater_than_eq(2.0),
            "less_than": c.less_than(-1.5), "unit_interval": c.unit_interval,
            "interval": c.interval(1.0, 3.0),
            "interval_tensor": c.interval(m.tensor([0.0, 1.0, 2.0], dtype=m.float64),
                                          m.tensor([1.0, 4.0, 2.5], dtype=m.float64)),
            "half_open_interval": c.half_open_interval(-1.0, 1.0),
            "simplex": c.simplex, "corr_cholesky": c.corr_cholesky,
            "lower_cholesky": c.lower_cholesky, "positive_definite": c.positive_definite,
            "positive_semidefinite": c.positive_semidefinite,
            "independent": c.independent(c.positive, 1),
            "cat": c.cat([c.positive, c.real, c.unit_interval], 0, [1, 1, 1]),
            "stack": c.stack([c.positive, c.real, c.unit_interval], -1),
            "lower_triangular": c.lower_triangular, "square": c.square,
            "symmetric": c.symmetric, "boolean": c.boolean,
            "integer_interval": c.integer_interval(0, 3)}


INPUTS = {"corr_cholesky": (2, 6), "lower_cholesky": (2, 3, 3), "positive_definite": (2, 3, 3),
          "positive_semidefinite": (2, 3, 3), "simplex": (2, 3), "cat": (3, 2)}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(_constraints(torch)))
def test_registry_matches_pytorch(registry, name):
    ce, ct = _constraints(et)[name], _constraints(torch)[name]
    reg_e = getattr(et.distributions, registry)
    reg_t = getattr(torch.distributions, registry)
    try:
        tt = reg_t(ct)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            reg_e(ce)
        return
    te = reg_e(ce)
    assert type(te).__name__ == type(tt).__name__
    assert repr(te) == repr(tt)
    x = _arr(*INPUTS.get(name, (2, 3)))

    def f(m, x):
        t = getattr(m.distributions, registry)(_constraints(m)[name])
        y = t(x)
        out = [y, t.inv(y)]
        if t.bijective:
            out.append(t.log_abs_det_jacobian(x, y))
        return out
    y = check(f, x, rtol=1e-6, atol=1e-9)[0]
    assert bool(ce.check(y).all())


def test_registry_register():
    from ember.torch.distributions.constraint_registry import ConstraintRegistry
    registry = ConstraintRegistry()
    c = et.distributions.constraints
    made = registry.register(c.positive, lambda constraint: et.distributions.ExpTransform())
    assert registry(c.greater_than(3.0)) == et.distributions.ExpTransform()
    assert made(c.positive) == et.distributions.ExpTransform()

    @registry.register(type(c.simplex))
    def _softmax(constraint):
        return et.distributions.SoftmaxTransform()
    assert isinstance(registry(c.simplex), et.distributions.SoftmaxTransform)
    with pytest.raises(KindError):
        registry.register(3, lambda constraint: None)
    with pytest.raises(NotImplementedError):
        registry(c.real)

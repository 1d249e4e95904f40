"""nn.AdaptiveLogSoftmaxWithLoss against torch: parameters, outputs, loss, gradients,
log_prob and predict."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError


def _pair(*args, **kw):
    torch.manual_seed(0)
    mt = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw)
    me = et.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw)
    assert repr(me) == repr(mt)
    assert {k: tuple(v.shape) for k, v in me.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in mt.state_dict().items()}
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    return mt, me


@pytest.mark.parametrize("args,kw,target", [
    ((16, 20, [5, 10]), dict(div_value=2.0), [0, 4, 5, 9, 10, 19]),
    ((8, 12, [3]), dict(head_bias=True), [11, 1, 2, 7]),
    ((6, 9, [2, 4, 6]), {}, [8]),
])
def test_forward_loss_and_gradients(args, kw, target):
    mt, me = _pair(*args, **kw)
    x = np.random.default_rng(0).standard_normal((len(target), args[0])).astype("float32")
    xt, xe = torch.tensor(x, requires_grad=True), et.tensor(x, requires_grad=True)
    ot = mt(xt, torch.tensor(target))
    oe = me(xe, et.tensor(target))
    np.testing.assert_allclose(oe.output.detach().numpy(), ot.output.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(oe.loss.item(), ot.loss.item(), rtol=1e-5)
    ot.loss.backward()
    oe.loss.backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-6)
    for (n, pe), (_, pt) in zip(me.named_parameters(), mt.named_parameters()):
        assert (pe.grad is None) == (pt.grad is None), n  # unused tails: None, as PyTorch
        if pt.grad is None:
            continue
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=n)
    np.testing.assert_allclose(me.log_prob(et.tensor(x)).detach().numpy(),
                               mt.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    assert me.predict(et.tensor(x)).tolist() == mt.predict(torch.tensor(x)).tolist()


def test_unbatched():
    mt, me = _pair(4, 6, [2])
    x = np.ones(4, "float32")
    ot, oe = mt(torch.tensor(x), torch.tensor(5)), me(et.tensor(x), et.tensor(5))
    assert oe.output.shape == () and abs(oe.output.item() - ot.output.item()) < 1e-5
    assert me.log_prob(et.tensor(x)).shape == (6,)


def test_bad_arguments():
    with pytest.raises(InvalidParameterError):
        ember.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [3, 2])
    with pytest.raises(InvalidParameterError):
        ember.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [6])
    m = ember.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
    with pytest.raises(InvalidParameterError):
        m(ember.ones(2, 4), ember.tensor([0, 6]))
    with pytest.raises(KindError):
        m(ember.ones(2, 4), ember.tensor([0.0, 1.0]))
    with pytest.raises(ShapeMismatchError):
        m(ember.ones(2, 5), ember.tensor([0, 1]))

"""Models exported by PyTorch (torch.onnx.export) load into ember with PyTorch's outputs, and
their gradients w.r.t. the imported parameters and the inputs equal PyTorch's."""

import io

import numpy as np
import pytest
import torch

pytest.importorskip("onnx")

import ember  # noqa: E402
import ember.onnx  # noqa: E402


class Block(torch.nn.Module):
    """A pre-norm transformer block."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.att = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.ff = torch.nn.Sequential(torch.nn.Linear(d, 32), torch.nn.GELU(),
                                      torch.nn.Linear(32, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.att(h, h, h, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3),
                               torch.nn.LogSoftmax(-1))


def cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(4, 4, 3, groups=2, stride=2),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4, 2))


class Recurrent(torch.nn.Module):
    """A bidirectional LSTM and a GRU over (batch, time, features)."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(3, 5, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(10, 4, batch_first=True)

    def forward(self, x):
        return self.gru(self.lstm(x)[0])[0]


MODELS = {"mlp": (mlp, (5, 4)), "cnn": (cnn, (2, 3, 8, 8)), "block": (Block, (2, 5, 16)),
          "recurrent": (Recurrent, (2, 6, 3))}


def export(model, x, **kw):
    f = io.BytesIO()
    torch.onnx.export(model, (x,), f, dynamo=False, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, **kw)
    return f.getvalue()


def loaded(name, **kw):
    torch.manual_seed(0)
    make, shape = MODELS[name]
    model = make()
    with torch.no_grad():  # no two parameters equal (the exporter would share one initializer)
        for p in model.parameters():
            p.add_(0.1 * torch.randn(p.shape))
    if name == "cnn":  # non-trivial running statistics
        model.train()
        model(torch.randn(8, *shape[1:]))
    model.eval()
    x = torch.randn(*shape)
    return model, x, ember.onnx.load(export(model, x, **kw))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_outputs_match_torch_for_other_batch_sizes(name):
    model, x, m = loaded(name)
    for batch in (x.shape[0], 3):
        xb = torch.randn(batch, *x.shape[1:])
        y = m(ember.tensor(xb.numpy()))
        np.testing.assert_allclose(y.detach().numpy(), model(xb).detach().numpy(), rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_gradients_match_torch(name):
    # keep BatchNormalization and every initializer as exported (no constant folding), so each
    # imported parameter is one of PyTorch's
    model, x, m = loaded(name, do_constant_folding=False)
    ours = dict(m.named_parameters())
    theirs = dict(model.named_parameters())
    shared = [n for n in theirs if n in ours]
    assert len(shared) == len(theirs)  # every PyTorch parameter arrived under its own name
    xe = ember.tensor(x.numpy(), requires_grad=True)
    xt = x.clone().requires_grad_(True)
    seed = torch.randn(*model(x).shape)
    loss_e = (m(xe) * ember.tensor(seed.numpy())).sum()
    loss_t = (model(xt) * seed).sum()
    loss_e.backward()
    loss_t.backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)
    for n in shared:
        np.testing.assert_allclose(ours[n].grad.numpy(), theirs[n].grad.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=n)


def test_second_order_gradient_matches_torch():
    model, x, m = loaded("mlp")
    xe = ember.tensor(x.numpy(), requires_grad=True)
    xt = x.clone().requires_grad_(True)
    m(xe).exp().sum().backward(create_graph=True)
    ge, xe.grad = xe.grad, None
    (gt,) = torch.autograd.grad(model(xt).exp().sum(), [xt], create_graph=True)
    (ge * ge).sum().backward()
    (gt * gt).sum().backward()
    np.testing.assert_allclose(ge.detach().numpy(), gt.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_state_dict_to_device_and_fine_tuning():
    model, x, m = loaded("mlp")
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    np.testing.assert_array_equal(m.state_dict()["0.weight"].detach().numpy(),
                                  model[0].weight.detach().numpy())
    assert m.to_device("torch:cpu") is m
    assert all(p.device == ember.Device("torch:cpu") for p in m.parameters())
    xe = ember.tensor(x.numpy(), device="torch:cpu")
    target = ember.tensor([0, 1, 2, 0, 1], device="torch:cpu")
    opt = ember.optim.SGD(m.parameters(), lr=0.5)
    first = None
    for _ in range(5):
        loss = ember.nn.functional.nll_loss(m(xe), target)
        first = first if first is not None else loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < first

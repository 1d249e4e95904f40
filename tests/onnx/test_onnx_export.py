"""ember.onnx.export: ember modules traced to ONNX pass onnx.checker, run in onnxruntime with
ember's outputs, and load back (ember.onnx.load) with the same outputs and gradients."""

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
import ember.onnx  # noqa: E402
from ember import nn  # noqa: E402
from ember.onnx import ExportError  # noqa: E402
from ember.train import build_model  # noqa: E402


class Block(nn.Module):
    """A transformer block written with ember ops: attention from matmuls, softmax, reshape and
    transposes; layer norm; a GELU feed-forward."""

    def __init__(self, d=8, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ff = nn.Sequential(nn.Linear(d, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, d))

    def forward(self, x):
        b, t, d = x.shape
        qkv = self.qkv(self.ln1(x)).reshape(b, t, 3, self.heads, d // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = F.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, dim=-1) @ v
        x = x + self.out(att.transpose(1, 2).reshape(b, t, d))
        return x + self.ff(self.ln2(x))


class Tagger(nn.Module):
    """Embedding, mean over the sequence, two heads (two outputs)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6)
        self.a, self.b = nn.Linear(6, 3), nn.Linear(6, 2)

    def forward(self, ids):
        h = self.emb(ids).mean(dim=1)
        return F.log_softmax(self.a(h), dim=-1), self.b(h).sigmoid() * 2 - 1


def cnn():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, stride=2), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.AvgPool2d(2), nn.Flatten(), nn.Linear(16, 5), nn.Tanh())


def _trained_bn(model, x):
    model.train()
    model(x)  # running statistics that are not 0 and 1
    return model.eval()


def cases():
    ember.manual_seed(0)
    return {
        "mlp": (nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=1)),
                (ember.randn(5, 4),), 3),
        "cnn": (_trained_bn(cnn(), ember.randn(6, 3, 8, 8)), (ember.randn(2, 3, 8, 8),), 3),
        "block": (Block().eval(), (ember.randn(2, 5, 8),), 4),
        "digits": (_trained_bn(build_model(), ember.randn(6, 1, 8, 8)),
                   (ember.randn(3, 1, 8, 8),), 2),
        "tagger": (Tagger(), (ember.tensor([[1, 5, 7], [0, 19, 3]]),), 5),
    }


CASES = sorted(cases())


def _export(model, args, **kw):
    f = io.BytesIO()
    names = [f"in{i}" for i in range(len(args))]
    ember.onnx.export(model, args, f, input_names=names,
                      dynamic_axes={n: {0: "batch"} for n in names}, **kw)
    return f.getvalue(), names


def _outs(value):
    return list(value) if isinstance(value, tuple) else [value]


@pytest.mark.parametrize("name", CASES)
def test_export_passes_checker_and_matches_onnxruntime(name):
    model, args, batch = cases()[name]
    data, names = _export(model, args)
    proto = onnx.load_from_string(data)
    onnx.checker.check_model(proto, full_check=True)
    session = ort.InferenceSession(data)
    for x in (args[0], ember.cat([args[0]] * 2, dim=0)[:batch]):  # another batch size too
        expected = _outs(model(x))
        got = session.run(None, {names[0]: x.numpy()})
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_round_trip_gives_same_outputs_and_gradients(name):
    model, args, _ = cases()[name]
    data, _ = _export(model, args)
    back = ember.onnx.load(data)
    ours = dict(model.named_parameters())
    theirs = dict(back.named_parameters())
    assert set(ours) <= set(theirs)  # parameters under their state_dict names
    x = args[0]
    if x.kind == "float":
        x = ember.tensor(x.numpy(), requires_grad=True)
        x2 = ember.tensor(x.detach().numpy(), requires_grad=True)
    else:
        x2 = x
    a, b = _outs(model(x)), _outs(back(x2))
    loss_a = sum((o * (i + 1)).sum() for i, o in enumerate(a))
    loss_b = sum((o * (i + 1)).sum() for i, o in enumerate(b))
    np.testing.assert_allclose(loss_b.item(), loss_a.item(), rtol=1e-5, atol=1e-5)
    loss_a.backward()
    loss_b.backward()
    for n, p in ours.items():
        np.testing.assert_allclose(theirs[n].grad.numpy(), p.grad.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=n)
    if x.kind == "float":
        np.testing.assert_allclose(x2.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_export_to_a_path_and_torch_spelling(tmp_path):
    import ember.torch as torch
    ember.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.GELU(), torch.nn.Linear(4, 2))
    x = torch.randn(2, 3)
    path = tmp_path / "net.onnx"
    torch.onnx.export(net, (x,), str(path), input_names=["x"], output_names=["y"],
                      opset_version=20)
    proto = onnx.load(str(path))
    assert [n.op_type for n in proto.graph.node][:3] == ["Gemm", "Gelu", "Gemm"]
    assert [o.name for o in proto.graph.output] == ["y"]
    got = ort.InferenceSession(str(path)).run(None, {"x": x.numpy()})[0]
    np.testing.assert_allclose(got, net(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert torch.onnx.is_in_onnx_export() is False


def test_untranslated_op_raises_export_error_naming_it():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x).cumsum(1)  # no ONNX translation of cumsum in export

    with pytest.raises(ExportError, match="cumsum"):
        _export(Odd(), (ember.randn(2, 3),))


def test_export_restores_the_training_mode_and_the_patched_functions():
    model = cnn()
    add = ember.Tensor.__add__
    _export(model, (ember.randn(1, 3, 8, 8),))
    assert model.training is True
    assert ember.Tensor.__add__ is add and "forward" not in nn.BatchNorm2d.__dict__


def test_bad_export_arguments():
    net = nn.Linear(2, 2)
    with pytest.raises(ember.InvalidParameterError, match="opset_version"):
        ember.onnx.export(net, (ember.ones(1, 2),), io.BytesIO(), opset_version=5)
    with pytest.raises(ember.InvalidParameterError, match="input_names"):
        ember.onnx.export(net, (ember.ones(1, 2),), io.BytesIO(), input_names=["a", "b"])
    with pytest.raises(ember.InvalidParameterError, match="f must be"):
        ember.onnx.export(net, (ember.ones(1, 2),), 3)

"""interpolate/Upsample, pixel and channel shuffles, affine_grid/grid_sample and the padding
modules against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand


def _F(m):
    return m.nn.functional


SIZES = [dict(scale_factor=2), dict(size=(5, 7)), dict(scale_factor=(0.5, 1.7)),
         dict(size=(3, 2)), dict(scale_factor=1.5, recompute_scale_factor=True)]


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic", "area"])
@pytest.mark.parametrize("kw", SIZES, ids=[str(s) for s in SIZES])
def test_interpolate_2d(mode, kw):
    check(lambda m, x: _F(m).interpolate(x, mode=mode, **kw), rand((2, 3, 6, 5)), atol=1e-5)
    if mode in ("bilinear", "bicubic"):
        for extra in (dict(align_corners=True), dict(antialias=True),
                      dict(antialias=True, align_corners=True)):
            check(lambda m, x: _F(m).interpolate(x, mode=mode, **kw, **extra),
                  rand((1, 2, 6, 5)), atol=1e-5)


def test_interpolate_1d_3d():
    check(lambda m, x: _F(m).interpolate(x, scale_factor=1.5, mode="linear"), rand((2, 3, 7)))
    check(lambda m, x: _F(m).interpolate(x, size=4, mode="linear", align_corners=True),
          rand((1, 1, 3)))
    check(lambda m, x: _F(m).interpolate(x, size=(3, 4, 5), mode="trilinear"),
          rand((1, 2, 2, 3, 4)))
    check(lambda m, x: _F(m).interpolate(x, scale_factor=(2, 1, 3)), rand((1, 2, 2, 3, 4)))
    check(lambda m, x: _F(m).interpolate(x, size=2, mode="area"), rand((2, 2, 5)))


def test_deprecated_upsample_functions():
    x = rand((1, 2, 3, 4))
    check(lambda m, t: _F(m).upsample_bilinear(t, scale_factor=2), x)
    check(lambda m, t: _F(m).upsample_nearest(t, size=(5, 5)), x)
    check(lambda m, t: _F(m).upsample(t, scale_factor=2, mode="bilinear"), x)


@pytest.mark.parametrize("cls,kw", [
    ("Upsample", dict(scale_factor=2)), ("Upsample", dict(size=(3, 4), mode="bilinear")),
    ("Upsample", dict(scale_factor=(2, 3), mode="bicubic", align_corners=True)),
    ("UpsamplingNearest2d", dict(scale_factor=2)), ("UpsamplingBilinear2d", dict(size=5)),
])
def test_upsample_modules(cls, kw):
    mt, me = getattr(torch.nn, cls)(**kw), getattr(et.nn, cls)(**kw)
    assert repr(me) == repr(mt)
    check(lambda m, x: (me if m is et else mt)(x), rand((2, 3, 4, 5)), atol=1e-5)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((9, 2, 3), 3), ((2, 1, 4, 1, 1), 2)])
def test_pixel_shuffle(shape, r):
    check(lambda m, x: _F(m).pixel_shuffle(x, r), rand(shape))
    check(lambda m, x: m.nn.PixelShuffle(r)(x), rand(shape))
    out = _F(torch).pixel_shuffle(torch.tensor(rand(shape)), r)
    check(lambda m, x: _F(m).pixel_unshuffle(x, r), out.numpy())
    check(lambda m, x: m.nn.PixelUnshuffle(r)(x), out.numpy())


def test_channel_shuffle():
    check(lambda m, x: _F(m).channel_shuffle(x, 3), rand((2, 6, 4)))
    check(lambda m, x: m.nn.ChannelShuffle(2)(x), rand((1, 4, 2, 3)))
    assert repr(et.nn.ChannelShuffle(2)) == repr(torch.nn.ChannelShuffle(2))
    assert repr(et.nn.PixelShuffle(2)) == repr(torch.nn.PixelShuffle(2))
    assert repr(et.nn.PixelUnshuffle(3)) == repr(torch.nn.PixelUnshuffle(3))


@pytest.mark.parametrize("size,ac", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True),
                                     ((1, 3, 1, 3), False), ((1, 3, 2, 4, 5), False),
                                     ((1, 3, 2, 4, 5), True)])
def test_affine_grid(size, ac):
    k = len(size) - 2
    check(lambda m, t: _F(m).affine_grid(t, size, align_corners=ac), rand((size[0], k, k + 1)))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("pm", ["zeros", "border", "reflection"])
def test_grid_sample(mode, pm):
    g = np.clip(rand((2, 3, 2, 2), seed=1) * 0.7, -1.2, 1.2)
    check(lambda m, x, gr: _F(m).grid_sample(x, gr, mode=mode, padding_mode=pm,
                                             align_corners=False), rand((2, 3, 4, 5)), g,
          atol=1e-5)


PADS = [("ZeroPad1d", (1, 2)), ("ZeroPad2d", (1,)), ("ZeroPad3d", ((1, 0, 2, 1, 0, 1),)),
        ("ConstantPad1d", ((1, 2), 3.5)), ("ConstantPad2d", (2, -1.0)),
        ("ConstantPad3d", (1, 0)), ("ReflectionPad1d", (2,)),
        ("ReflectionPad2d", ((1, 0, 2, 1),)), ("ReflectionPad3d", (1,)),
        ("ReplicationPad1d", ((3, 1),)), ("ReplicationPad2d", (2,)),
        ("ReplicationPad3d", ((1, 2, 0, 1, 1, 0),)), ("CircularPad1d", (2,)),
        ("CircularPad2d", ((1, 2, 0, 1),)), ("CircularPad3d", (1,))]


@pytest.mark.parametrize("cls,args", PADS, ids=[p[0] for p in PADS])
def test_padding_modules(cls, args):
    if cls.startswith("ZeroPad1d"):
        args = ((1, 2),)
    mt, me = getattr(torch.nn, cls)(*args), getattr(et.nn, cls)(*args)
    assert repr(me) == repr(mt)
    nd = int(cls[-2])
    for shape in [(2, 3) + (4,) * nd, (3,) + (5,) * nd]:
        check(lambda m, x: (me if m is et else mt)(x), rand(shape))


def test_bad_arguments():
    F = ember.nn.functional
    x = ember.ones(1, 2, 4, 4)
    with pytest.raises(InvalidParameterError):
        F.interpolate(x, scale_factor=2, mode="cubic")
    with pytest.raises(InvalidParameterError):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(InvalidParameterError):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(ShapeMismatchError):
        F.interpolate(ember.ones(1, 2, 4), scale_factor=2, mode="bilinear")
    with pytest.raises(InvalidParameterError):
        F.interpolate(x, scale_factor=2, antialias=True)
    with pytest.raises(ShapeMismatchError):
        F.pixel_shuffle(ember.ones(1, 3, 2, 2), 2)
    with pytest.raises(ShapeMismatchError):
        F.pixel_unshuffle(ember.ones(1, 3, 3, 2), 2)
    with pytest.raises(ShapeMismatchError):
        F.channel_shuffle(ember.ones(1, 3, 2), 2)
    with pytest.raises(ShapeMismatchError):
        F.affine_grid(ember.ones(1, 2, 2), (1, 1, 2, 2))
    with pytest.raises(InvalidParameterError):
        ember.nn.ReflectionPad1d(3)(ember.ones(1, 3))
    with pytest.raises(ShapeMismatchError):
        ember.nn.ReflectionPad2d(1)(ember.ones(2, 3))
    with pytest.raises(InvalidParameterError):
        ember.nn.ZeroPad2d((1, 2, 3))

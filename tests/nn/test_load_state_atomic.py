"""Module.load_state_dict changes nothing when any key fails: every value is checked and cast
before the first tensor is rebound."""

import numpy as np
import pytest

import ember
from ember import KindError, nn


def _values(m):
    return {k: v.tolist() for k, v in m.state_dict().items()}


def test_bad_value_at_the_last_key_leaves_every_tensor_alone():
    m = nn.Linear(2, 1)
    before = _values(m)
    with pytest.raises(KindError, match=r"load_state_dict: Linear: the value of key 'bias' "
                                        r"cannot load into a float32 tensor"):
        m.load_state_dict({"weight": ember.ones(1, 2), "bias": ember.tensor([1 + 2j])})
    assert _values(m) == before


@pytest.mark.parametrize("strict", [True, False])
def test_nested_module_with_buffers_is_loaded_whole_or_not_at_all(strict):
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2))
    before = _values(m)
    good = {k: ember.full(tuple(v.shape), float(i + 1)) for i, (k, v) in
            enumerate(m.state_dict().items())}
    good["1.num_batches_tracked"] = ember.tensor(5)
    bad = dict(good)
    bad["2.bias"] = [1j, 2j]              # the last key: a complex list for a float tensor
    with pytest.raises(KindError, match=r"key '2.bias'"):
        m.load_state_dict(bad, strict=strict)
    assert _values(m) == before
    m.load_state_dict(good, strict=strict)
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), good[k].numpy())
    assert m[1].num_batches_tracked.dtype == ember.int64

"""ember/torch/streams.py against torch 2.13's CPU behaviour of torch.Stream and torch.Event."""

import pytest
import torch

import ember.torch as et
from ember.errors import DeviceError, InvalidParameterError, KindError


def test_cpu_stream_as_torch():
    s, t = et.Stream("cpu"), torch.Stream("cpu")
    assert repr(s) == repr(t)
    assert str(s.device) == str(t.device) == "cpu"
    assert (s.device_type, s.device_index, s.stream_id) == (t.device_type, t.device_index,
                                                            t.stream_id)
    assert s.query() == t.query() is True
    assert s.synchronize() is None and t.synchronize() is None
    assert s.is_capturing() == t.is_capturing() is False
    assert s.wait_stream(et.Stream("cpu")) is None
    assert s.wait_event(et.Event("cpu")) is None
    assert (s == et.Stream("cpu")) == (t == torch.Stream("cpu")) is True
    assert hash(s) == hash(et.Stream("cpu"))
    with s as inside:
        assert inside is s
        assert (et.ones(2) * 3).tolist() == [3.0, 3.0]
    assert et.Stream("cpu", priority=-1).priority == -1


def test_default_stream_device_without_accelerator():
    if et.accelerator.is_available():
        pytest.skip("an accelerator is the default stream device here")
    assert repr(et.Stream()) == repr(torch.Stream())


def test_cpu_event_as_torch():
    e, t = et.Event("cpu"), torch.Event("cpu")
    assert repr(e) == repr(t)
    timed, timed_t = et.Event("cpu", enable_timing=True), torch.Event("cpu", enable_timing=True)
    assert repr(timed) == repr(timed_t)
    assert e.query() == t.query() is True
    assert e.synchronize() is None and t.synchronize() is None
    assert e.wait() is None and t.wait() is None
    assert e.event_id == t.event_id
    with pytest.raises(RuntimeError):
        t.record()
    with pytest.raises(DeviceError, match="doesn't support events"):
        e.record()
    with pytest.raises(DeviceError):
        et.Stream("cpu").record_event()
    with pytest.raises(RuntimeError):
        torch.Stream("cpu").record_event()


def test_elapsed_time_errors_as_torch():
    with pytest.raises(ValueError, match="enable_timing"):
        torch.Event("cpu").elapsed_time(torch.Event("cpu"))
    with pytest.raises(InvalidParameterError, match="enable_timing"):
        et.Event("cpu").elapsed_time(et.Event("cpu"))
    a, b = et.Event("cpu", enable_timing=True), et.Event("cpu", enable_timing=True)
    with pytest.raises(ValueError, match="recorded"):
        torch.Event("cpu", enable_timing=True).elapsed_time(torch.Event(enable_timing=True))
    with pytest.raises(InvalidParameterError, match="recorded"):
        a.elapsed_time(b)


def test_bad_arguments():
    with pytest.raises(KindError):
        et.Event("cpu", blocking="x")
    with pytest.raises(TypeError):
        torch.Event("cpu", blocking="x")
    with pytest.raises(KindError):
        et.Stream("cpu", priority=0.5)
    with pytest.raises(InvalidParameterError):
        et.Stream("tpu")
    with pytest.raises(KindError):
        et.Stream("cpu").wait_event("e")
    if not et.cuda.is_available():
        with pytest.raises(DeviceError):
            et.Stream("cuda")
        with pytest.raises(RuntimeError):
            torch.Stream("cuda")


def test_record_stream_on_cpu_raises_as_torch():
    with pytest.raises(NotImplementedError):
        torch.ones(1).record_stream(torch.Stream("cpu"))
    with pytest.raises(DeviceError):
        et.ones(1).record_stream(et.Stream("cpu"))
    with pytest.raises(KindError):
        et.ones(1).record_stream("s")

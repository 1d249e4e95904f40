"""Tests of ember/threads.py: set_num_threads/get_num_threads resize the BLAS pool NumPy uses
(seen through threadpoolctl), set the OMP/BLAS environment variables, keep results unchanged,
and reject bad input."""

import doctest
import os

import numpy as np
import pytest
import torch

import ember
from ember import threads
from oracle import assert_close

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads():
    return {p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"}


def test_set_and_get_num_threads_control_blas():
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        assert _blas_threads() in (set(), {1})
        assert os.environ["OMP_NUM_THREADS"] == "1" and os.environ["OPENBLAS_NUM_THREADS"] == "1"
        a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
        assert_close(ember.tensor(a) @ ember.tensor(a), torch.tensor(a) @ torch.tensor(a),
                     rtol=1e-4, atol=1e-4)
        ember.set_num_threads(2)
        assert ember.get_num_threads() == min(2, max(_blas_threads() or {2}))
    finally:
        ember.set_num_threads(before)
    assert ember.get_num_threads() == before
    assert isinstance(torch.get_num_threads(), int)       # the same spelling as torch


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_bad_thread_counts(bad):
    before = ember.get_num_threads()
    with pytest.raises(ember.InvalidParameterError, match=r"set_num_threads: num must be an int "
                       r">= 1, got"):
        ember.set_num_threads(bad)
    assert ember.get_num_threads() == before


def test_module_doctests():
    result = doctest.testmod(threads)
    assert result.attempted > 2 and result.failed == 0

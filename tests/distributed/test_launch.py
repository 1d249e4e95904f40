"""ember.distributed.launch: N local ranks with torchrun's environment on 127.0.0.1; a failing
rank ends the others, and so does the timeout."""

import json
import sys
import time

from ember.distributed.launch import free_port, launch

RANK_ENV = ("import json, os, sys; keys = ('RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'MASTER_ADDR', "
            "'MASTER_PORT'); json.dump({k: os.environ[k] for k in keys}, "
            "open(sys.argv[1] + os.environ['RANK'], 'w'))")


def test_every_rank_gets_torchruns_environment(tmp_path):
    assert launch([sys.executable, "-c", RANK_ENV, str(tmp_path / "rank")], 3, timeout=60) == 0
    envs = [json.loads((tmp_path / f"rank{r}").read_text()) for r in range(3)]
    assert [e["RANK"] for e in envs] == ["0", "1", "2"] == [e["LOCAL_RANK"] for e in envs]
    assert {e["WORLD_SIZE"] for e in envs} == {"3"} and {e["MASTER_ADDR"] for e in envs} == \
        {"127.0.0.1"}
    assert len({e["MASTER_PORT"] for e in envs}) == 1 and 0 < int(envs[0]["MASTER_PORT"]) < 65536


def test_a_failing_rank_ends_the_others_and_gives_its_code():
    code = ("import os, sys, time; r = int(os.environ['RANK']); "
            "sys.exit(5) if r == 1 else time.sleep(120)")
    start = time.monotonic()
    assert launch([sys.executable, "-c", code], 2, timeout=100) == 5
    assert time.monotonic() - start < 60  # rank 0 was ended, not waited for


def test_the_timeout_ends_every_rank():
    start = time.monotonic()
    assert launch([sys.executable, "-c", "import time; time.sleep(120)"], 2, timeout=1) == 124
    assert time.monotonic() - start < 60


def test_free_port_is_a_port():
    assert 0 < free_port() < 65536

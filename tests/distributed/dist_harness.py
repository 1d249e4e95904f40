"""Start the programs of workers.py on 2 ranks: 127.0.0.1 only, a free port, bounded time, and
every process started is ended by its PID."""

import os
import subprocess
import sys

from ember.distributed.launch import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 400  # seconds for a whole run: startup (importing torch) dominates on a busy machine


def env(**extra):
    base = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), WORLD_SIZE="2",
                OMP_NUM_THREADS="1")
    base.update(extra)
    return base


def run_ranks(programs, outdir, world=2, timeout=TIMEOUT):
    """Run workers.py ``programs`` on ``world`` ranks; returns [(returncode, stderr)] per rank."""
    base = env(WORLD_SIZE=str(world))
    procs = []
    try:
        for rank in range(world):
            procs.append(subprocess.Popen(
                [sys.executable, os.path.join(HERE, "workers.py"), programs, str(outdir)],
                env=dict(base, RANK=str(rank), LOCAL_RANK=str(rank)), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True))
        results = []
        for p in procs:
            _, err = p.communicate(timeout=timeout)
            results.append((p.returncode, err))
        return results
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()

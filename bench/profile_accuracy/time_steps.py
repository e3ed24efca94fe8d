"""Runs a training script as `python SCRIPT ARGS` would and prints its mean step time over a
window of steps: from the optimizer step after the first SKIP (environment GPULINT_TIME_SKIP,
default 20) to the COUNT-th after it (GPULINT_TIME_STEPS, default 100), the GPU drained at both
ends. A loop that never waits for its GPU runs ahead of it until CUDA's launch queue is full,
and its host keeps a queue's worth of steps ahead after that: host time between its optimizer
steps alone reads the host's pace for as long as the queue is filling, not the GPU's (the
four-sync loop with its syncs removed read 8.2 ms a step that way on an H100, where its own
drained timing read 9.0 on the same machine). A script with fewer steps ends the window at its
exit, drained there. How bench/profile_accuracy times the A/B runs it compares gpulint
profile's predictions with.

    python time_steps.py SCRIPT [ARGS...]   ->   stderr: "time_steps: 8.123 ms/step over 100 steps"
"""

import atexit
import os
import runpy
import sys
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

skip = int(os.environ.get("GPULINT_TIME_SKIP", "20"))
count = int(os.environ.get("GPULINT_TIME_STEPS", "100"))
times = []
first = []


def drain():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def on_step(optimizer, args, kwargs):
    if not first:
        first.append(optimizer)
    if optimizer is first[0]:
        if len(times) in (skip, skip + count):
            drain()
        times.append(time.perf_counter())


def report():
    steps = times[skip:skip + count + 1]
    if len(steps) < 2:
        print("time_steps: too few steps (%d)" % len(times), file=sys.stderr)
        return
    end = steps[-1]
    if len(steps) < count + 1:
        drain()
        end = time.perf_counter()
    ms = (end - steps[0]) * 1000 / (len(steps) - 1)
    print("time_steps: %.3f ms/step over %d steps" % (ms, len(steps) - 1), file=sys.stderr)


register_optimizer_step_post_hook(on_step)
atexit.register(report)
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")

"""Runs a training script as `python SCRIPT ARGS` would and prints its mean step time: the host's
time from one optimizer step to the next, over the steps after the first SKIP (environment
GPULINT_TIME_SKIP, default 20). A loop that never waits for its GPU runs ahead of it only until
CUDA's launch queue is full, a few steps; after that its steps come at the GPU's pace. How
bench/profile_accuracy times the A/B runs it compares gpulint profile's predictions with.

    python time_steps.py SCRIPT [ARGS...]   ->   stderr: "time_steps: 8.123 ms/step over 140 steps"
"""

import atexit
import os
import runpy
import sys
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

skip = int(os.environ.get("GPULINT_TIME_SKIP", "20"))
times = []
first = []


def on_step(optimizer, args, kwargs):
    if not first:
        first.append(optimizer)
    if optimizer is first[0]:
        times.append(time.perf_counter())


def report():
    steps = times[skip:]
    if len(steps) < 2:
        print("time_steps: too few steps (%d)" % len(times), file=sys.stderr)
        return
    ms = (steps[-1] - steps[0]) * 1000 / (len(steps) - 1)
    print("time_steps: %.3f ms/step over %d steps" % (ms, len(steps) - 1), file=sys.stderr)


register_optimizer_step_post_hook(on_step)
atexit.register(report)
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
runpy.run_path(sys.argv[0], run_name="__main__")

"""Shared by the cross-check scripts: the verifier's repeat loop, in Python, and the output.

Each script does through PyTorch what one verifier experiment does in CUDA C++, and prints
{"experiment": NAME, "figures": {ID: {"median": M, "p25": .., "p75": .., "unit": U}}} with the
verifier's measurement ids, so compare.py can set the two side by side.
"""

import json
import os
import statistics
import sys
import time

import torch


def quantile(sorted_values, q):
    rank = q * (len(sorted_values) - 1)
    lo = int(rank)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (rank - lo)


def measure(sample, warmup=2, min_samples=5, batch=5, max_samples=60, rel_tol=0.02, budget_s=0.3):
    """The harness's stable-median loop (verifier/harness/stable.cpp), same defaults."""
    for _ in range(warmup):
        sample()
    start = time.perf_counter()
    samples = [sample() for _ in range(min_samples)]
    previous = statistics.median(samples)
    while len(samples) < max_samples and time.perf_counter() - start < budget_s:
        samples.extend(sample() for _ in range(batch))
        current = statistics.median(samples)
        moved = abs(current - previous)
        previous = current
        if moved <= rel_tol * abs(current):
            break
    s = sorted(samples)
    return {"median": quantile(s, 0.5), "p25": quantile(s, 0.25), "p75": quantile(s, 0.75),
            "samples": len(s)}


def pin_to_one_core():
    """Keeps this thread on one core (the last it may use, away from core 0 where interrupts
    are usually handled), as the verifier's host-bound experiments are kept (threads started
    later inherit it: only for scripts that start none)."""
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})


def rate(time_figure, amount):
    """amount per time, with the quartiles swapped, as rate_of in the harness."""
    return {"median": amount / time_figure["median"], "p25": amount / time_figure["p75"],
            "p75": amount / time_figure["p25"], "samples": time_figure["samples"]}


def sleep_cycles_per_us():
    """SM cycles per microsecond for torch.cuda._sleep, timed with events (best of 5)."""
    cycles = 2_000_000
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = float("inf")
    for _ in range(5):
        start.record()
        torch.cuda._sleep(cycles)
        stop.record()
        stop.synchronize()
        best = min(best, start.elapsed_time(stop))
    return cycles / (best * 1000.0)


class Report:
    def __init__(self, experiment):
        self.experiment = experiment
        self.figures = {}

    def add(self, fid, unit, figure):
        self.figures[fid] = dict(figure, unit=unit)
        print(f"{fid:28s} {figure['median']:12.4g} {unit}", file=sys.stderr)

    def emit(self):
        json.dump({"experiment": self.experiment, "device": torch.cuda.get_device_name(),
                   "torch": torch.__version__, "figures": self.figures}, sys.stdout, indent=1)
        print()

"""debug (GL501) through PyTorch: K torch.cuda._sleep kernels a step, asynchronous vs
torch.cuda.synchronize() after every kernel (what CUDA_LAUNCH_BLOCKING=1 makes each launch)."""

import time

import torch

from common import Report, measure, pin_to_one_core, sleep_cycles_per_us
from sync import K, PROFILES, steps_per_sample


def main():
    pin_to_one_core()
    torch.cuda.init()
    cycles_per_us = sleep_cycles_per_us()
    report = Report("debug")
    for name, kernel_us in PROFILES:
        cycles = int(kernel_us * cycles_per_us)
        steps = steps_per_sample(kernel_us)

        def run(sync_each):
            def sample():
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(steps):
                    for _ in range(K):
                        torch.cuda._sleep(cycles)
                        if sync_each:
                            torch.cuda.synchronize()
                torch.cuda.synchronize()
                return (time.perf_counter() - t0) * 1e6 / steps
            return sample

        report.add(f"{name}.async", "us/step", measure(run(False)))
        report.add(f"{name}.sync_each", "us/step", measure(run(True)))
    report.emit()


if __name__ == "__main__":
    main()

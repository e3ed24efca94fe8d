"""sync (GL101-GL105) through PyTorch: K torch.cuda._sleep kernels a step (the verifier's spin
kernel does the same), pipelined vs `.item()` each step vs torch.cuda.synchronize() each step
vs a printed `.item()` each step (to /dev/null)."""

import os
import time

import torch

from common import Report, measure, pin_to_one_core, sleep_cycles_per_us

K = 16
PROFILES = [("launch", 0.0), ("balanced", 5.0), ("compute", 50.0)]


def steps_per_sample(kernel_us, requested=100):
    step_us = K * max(kernel_us, 2.0)
    return max(10, min(requested, int(20000.0 / step_us)))


def main():
    pin_to_one_core()
    torch.cuda.init()
    value = torch.zeros(1, dtype=torch.int32, device="cuda")
    cycles_per_us = sleep_cycles_per_us()
    sink = open(os.devnull, "w")
    report = Report("sync")
    for name, kernel_us in PROFILES:
        cycles = int(kernel_us * cycles_per_us)
        steps = steps_per_sample(kernel_us)

        def run(variant):
            def sample():
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for s in range(steps):
                    for _ in range(K):
                        torch.cuda._sleep(cycles)
                    if variant == "readback":
                        value.item()
                    elif variant == "device_sync":
                        torch.cuda.synchronize()
                    elif variant == "print":
                        print(f"step {s} loss {value.item() * 1e-6:.4f}", file=sink, flush=True)
                torch.cuda.synchronize()
                return (time.perf_counter() - t0) * 1e6 / steps
            return sample

        for variant in ("pipelined", "readback", "device_sync", "print"):
            report.add(f"{name}.{variant}", "us/step", measure(run(variant)))
    report.emit()


if __name__ == "__main__":
    main()

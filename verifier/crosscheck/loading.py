"""loading (GL201, GL206) through PyTorch:
- loader: a Dataset whose __getitem__ costs about 4 ms of CPU work on a 1 MiB batch (numpy
  arithmetic, calibrated), fed by DataLoader(num_workers=0) vs DataLoader(num_workers=4); each
  step copies the batch with .to("cuda") (pageable, blocking) and runs 2 ms of GPU work
  (torch.cuda._sleep).
- batch: 8 x (Linear(1024, 1024) + ReLU) forward under no_grad in FP32, samples/s for each
  batch size."""

import time

import numpy as np
import torch

from common import Report, measure, pin_to_one_core, rate, sleep_cycles_per_us

CPU_MS, GPU_MS, WORKERS, STEPS = 4.0, 2.0, 4, 16
FLOATS = 1 << 18


def preprocess(batch, passes):
    for p in range(passes):
        batch *= np.float32(0.999)
        batch += np.float32(0.001 * p)


def calibrate():
    batch = np.ones(FLOATS, dtype=np.float32)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        preprocess(batch, 4)
        best = min(best, (time.perf_counter() - t0) / 4)
    return max(1, round(CPU_MS / 1000.0 / best))


class Batches(torch.utils.data.Dataset):
    def __init__(self, passes):
        self.passes = passes

    def __len__(self):
        return 1 << 30

    def __getitem__(self, index):
        batch = np.ones(FLOATS, dtype=np.float32)
        preprocess(batch, self.passes)
        return batch


def loader_figure(passes, workers, cycles):
    loader = torch.utils.data.DataLoader(Batches(passes), batch_size=None, num_workers=workers,
                                         persistent_workers=workers > 0)
    it = iter(loader)

    def sample():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(STEPS):
            batch = next(it).to("cuda")
            torch.cuda._sleep(cycles)
        torch.cuda.synchronize()
        del batch
        return (time.perf_counter() - t0) * 1e3 / STEPS

    return measure(sample, min_samples=3, batch=3)


def main():
    torch.cuda.init()
    report = Report("loading")
    passes = calibrate()
    cycles = int(GPU_MS * 1000 * sleep_cycles_per_us())
    report.add("loader.inline", "ms/batch", loader_figure(passes, 0, cycles))
    report.add("loader.workers", "ms/batch", loader_figure(passes, WORKERS, cycles))

    pin_to_one_core()  # the loaders' workers are gone, as in the verifier's batch sweep
    layers = torch.nn.Sequential(*[m for _ in range(8)
                                   for m in (torch.nn.Linear(1024, 1024), torch.nn.ReLU())]).cuda()
    steps = 50
    for b in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
        x = torch.zeros(b, 1024, device="cuda")

        def sample():
            with torch.no_grad():
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(steps):
                    layers(x)
                torch.cuda.synchronize()
            return (time.perf_counter() - t0) / steps

        report.add(f"batch.b{b}", "samples/s", rate(measure(sample, budget_s=0.1), b))
    report.emit()


if __name__ == "__main__":
    main()

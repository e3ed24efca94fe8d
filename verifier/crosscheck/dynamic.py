"""dynamic (GL106, GL107, GL503) through PyTorch:
- shape: `x[x > 0.5] * 2` (a nonzero: count, read back, launch by the count) vs
  `torch.where(x > 0.5, x * 2, 0)` (fixed size), over 4M floats.
- alloc: 8 batch-sized (64x3x224x224 fp32) tensors a step, one float written per 4 KiB page
  as the verifier's touch kernel does, with torch.cuda.empty_cache() each step vs without.
- weights: nn.Linear(4096, 4096).cuda() each step vs a layer made once; both then scale the
  weight in place; the re-used layer's steps timed 20 at a time, as the verifier does."""

import time

import torch

from common import Report, measure, pin_to_one_core

STEPS = 100
BATCH = 64 * 3 * 224 * 224


def timed(fn, steps, scale=1e6):
    def sample():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * scale / steps
    return sample


def main():
    pin_to_one_core()
    torch.cuda.init()
    report = Report("dynamic")
    x = torch.rand(1 << 22, device="cuda")
    report.add("shape.fixed_launch", "us/step",
               measure(timed(lambda: torch.where(x > 0.5, x * 2, 0), STEPS)))
    report.add("shape.readback_launch", "us/step", measure(timed(lambda: x[x > 0.5] * 2, STEPS)))

    def alloc_step(release):
        buffers = [torch.empty(BATCH, device="cuda") for _ in range(8)]
        for b in buffers:
            b[::1024].fill_(1)
        del buffers
        if release:
            torch.cuda.empty_cache()

    alloc_steps = max(5, STEPS // 10)
    report.add("alloc.reuse", "us/step", measure(timed(lambda: alloc_step(False), alloc_steps)))
    report.add("alloc.free_malloc", "us/step",
               measure(timed(lambda: alloc_step(True), alloc_steps)))

    kept = torch.nn.Linear(4096, 4096).cuda()

    def reuse():
        with torch.no_grad():
            kept.weight.mul_(1.0)

    def recreate():
        layer = torch.nn.Linear(4096, 4096).cuda()
        with torch.no_grad():
            layer.weight.mul_(1.0)

    options = dict(min_samples=3, batch=2)
    report.add("weights.reuse", "ms/step", measure(timed(reuse, 20, 1e3), **options))
    report.add("weights.recreate", "ms/step", measure(timed(recreate, 1, 1e3), **options))
    report.emit()


if __name__ == "__main__":
    main()

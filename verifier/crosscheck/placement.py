"""placement (GL301, GL302, GL303) through PyTorch: a 1024x4096x4096 fp32 matmul on the CPU
(all cores, PyTorch's own BLAS) vs on the GPU (TF32 off, PyTorch's default), and
torch.randn / torch.zeros of a 64x3x224x224 batch made on the CPU then .cuda() vs made with
device="cuda"."""

import os
import time

import torch

from common import Report, measure, rate

M, N, K = 1024, 4096, 4096
SHAPE = (64, 3, 224, 224)


def main():
    torch.cuda.init()
    torch.set_num_threads(os.cpu_count())
    torch.backends.cuda.matmul.allow_tf32 = False
    report = Report("placement")
    a, b = torch.rand(M, K) * 2 - 1, torch.rand(K, N) * 2 - 1

    def cpu():
        t0 = time.perf_counter()
        torch.matmul(a, b)
        return (time.perf_counter() - t0) * 1e3

    cpu_ms = measure(cpu, warmup=1, min_samples=3, batch=2, budget_s=1.0)
    da, db = a.cuda(), b.cuda()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def gpu():
        start.record()
        torch.matmul(da, db)
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    gpu_ms = measure(gpu)
    gflop = 2.0 * M * N * K / 1e9
    report.add("gemm.cpu", "ms", cpu_ms)
    report.add("gemm.gpu", "ms", gpu_ms)
    report.add("gemm.cpu_gflops", "GFLOP/s", rate(cpu_ms, gflop * 1e3))
    report.add("gemm.gpu_gflops", "GFLOP/s", rate(gpu_ms, gflop * 1e3))

    def fill(make):
        def sample():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            make()
            torch.cuda.synchronize()
            return (time.perf_counter() - t0) * 1e3
        return sample

    options = dict(min_samples=3, batch=3)
    report.add("fill.host_copy", "ms", measure(fill(lambda: torch.randn(SHAPE).cuda()), **options))
    report.add("fill.device", "ms",
               measure(fill(lambda: torch.randn(SHAPE, device="cuda")), **options))
    report.add("fill.zeros_host_copy", "ms",
               measure(fill(lambda: torch.zeros(SHAPE).cuda()), **options))
    report.add("fill.zeros_device", "ms",
               measure(fill(lambda: torch.zeros(SHAPE, device="cuda")), **options))
    report.emit()


if __name__ == "__main__":
    main()

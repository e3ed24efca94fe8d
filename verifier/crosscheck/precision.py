"""precision (GL401, GL403, GL404, GL405) through PyTorch: torch.matmul of 4096x4096x4096 in
FP32 (allow_tf32 off), TF32 (allow_tf32 on), BF16 and FP16 on uniform random data, TFLOP/s;
then BF16 with K=4095 against K=4096."""

import torch

from common import Report, measure, rate

M = N = K = 4096


def tflops(a, b, k):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.matmul(a, b)
    stop.record()
    stop.synchronize()
    reps = max(1, min(200, int(3.0 / max(start.elapsed_time(stop), 1e-3))))

    def sample():
        start.record()
        for _ in range(reps):
            torch.matmul(a, b)
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / reps

    return rate(measure(sample, budget_s=0.15), 2.0 * M * N * k / 1e9)


def main():
    torch.cuda.init()
    report = Report("precision")
    a32 = torch.rand(M, K, device="cuda")
    b32 = torch.rand(K, N, device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    report.add("gemm.fp32", "TFLOP/s", tflops(a32, b32, K))
    torch.backends.cuda.matmul.allow_tf32 = True
    report.add("gemm.tf32", "TFLOP/s", tflops(a32, b32, K))
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, dtype in (("bf16", torch.bfloat16), ("fp16", torch.float16)):
        report.add(f"gemm.{name}", "TFLOP/s", tflops(a32.to(dtype), b32.to(dtype), K))
    for k in (4095, 4096):
        a = torch.rand(M, k, device="cuda", dtype=torch.bfloat16)
        b = torch.rand(k, N, device="cuda", dtype=torch.bfloat16)
        report.add(f"gemm.bf16.k{k}", "TFLOP/s", tflops(a, b, k))
    report.emit()


if __name__ == "__main__":
    main()

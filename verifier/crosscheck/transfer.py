"""transfer (GL202, GL204, GL205) through PyTorch: a 64x3x224x224 fp32 batch copied to the GPU
from pageable vs pinned memory (blocking), the link's peak (256 MiB pinned), the host time
inside copy_(non_blocking=True) from pageable and pinned and inside a blocking copy from
pinned, and a copy next to a torch.cuda._sleep kernel on another stream.

The pageable batches are what a training loop gets: each a fresh batch from a DataLoader with
workers and pin_memory=False (handed over in shared memory), so every copy is of one new
batch. The pinned batch is one tensor reused, as the pin-memory thread's host allocator
reuses its blocks."""

import time

import torch

from common import Report, measure, rate, sleep_cycles_per_us

SHAPE = (64, 3, 224, 224)


class Ones(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, index):
        return torch.ones(SHAPE)


def main():
    torch.cuda.init()
    report = Report("transfer")
    batches = iter(torch.utils.data.DataLoader(Ones(), batch_size=None, num_workers=2,
                                               prefetch_factor=2, persistent_workers=True))
    next(batches)
    pinned = torch.ones(SHAPE).pin_memory()
    device = torch.empty(SHAPE, device="cuda")
    copy_stream, compute_stream = torch.cuda.Stream(), torch.cuda.Stream()
    gb = pinned.numel() * 4 / 1e9

    def copy_ms(src):
        def sample():
            batch = next(batches) if src is None else src
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with torch.cuda.stream(copy_stream):
                device.copy_(batch)
            copy_stream.synchronize()
            return (time.perf_counter() - t0) * 1e3
        return sample

    big = torch.ones(256 << 18).pin_memory()  # 256 MiB of fp32
    big_device = torch.empty_like(big, device="cuda")

    def peak():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        big_device.copy_(big)
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3

    report.add("h2d.peak", "ms", measure(peak))
    pageable_ms = measure(copy_ms(None))
    pinned_ms = measure(copy_ms(pinned))
    report.add("h2d.pageable", "ms", pageable_ms)
    report.add("h2d.pinned", "ms", pinned_ms)
    report.add("h2d.pageable_gbs", "GB/s", rate(pageable_ms, gb * 1e3))
    report.add("h2d.pinned_gbs", "GB/s", rate(pinned_ms, gb * 1e3))

    def host_ms(src, non_blocking):
        def sample():
            batch = next(batches) if src is None else src
            torch.cuda.synchronize()
            with torch.cuda.stream(copy_stream):
                t0 = time.perf_counter()
                device.copy_(batch, non_blocking=non_blocking)
                t = (time.perf_counter() - t0) * 1e3
            copy_stream.synchronize()
            return t
        return sample

    report.add("host.pageable_async", "ms", measure(host_ms(None, True)))
    report.add("host.pinned_async", "ms", measure(host_ms(pinned, True)))
    report.add("host.pinned_sync", "ms", measure(host_ms(pinned, False)))

    cycles = int(pinned_ms["median"] * 1000 * sleep_cycles_per_us())

    def kernel():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.cuda.stream(compute_stream):
            torch.cuda._sleep(cycles)
        compute_stream.synchronize()
        return (time.perf_counter() - t0) * 1e3

    report.add("overlap.kernel", "ms", measure(kernel))

    def both(src):
        def sample():
            batch = next(batches) if src is None else src
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            with torch.cuda.stream(compute_stream):
                torch.cuda._sleep(cycles)
            with torch.cuda.stream(copy_stream):
                device.copy_(batch, non_blocking=True)
            copy_stream.synchronize()
            compute_stream.synchronize()
            return (time.perf_counter() - t0) * 1e3
        return sample

    report.add("overlap.pageable", "ms", measure(both(None)))
    report.add("overlap.pinned", "ms", measure(both(pinned)))
    report.emit()


if __name__ == "__main__":
    main()

"""A stand-in for torch with only what gpulint profile's shim touches, so that the shim's own
workings (the import hook, the step window, the marks, taking its hooks off) are tested where
torch is not installed. Events are written as the PyTorch profiler writes them."""

import time

__version__ = "0.0+stub"
_events = []
_recording = [False]


def _now_us():
    return time.perf_counter_ns() / 1000


def _event(cat, name, start, end, tid=1):
    if _recording[0]:
        _events.append({"ph": "X", "cat": cat, "name": name, "tid": tid, "ts": start,
                        "dur": end - start})


def _kernel(us):
    """GPU work of `us` microseconds, starting now."""
    start = _now_us()
    _event("kernel", "stub_kernel", start, start + us, tid=7)


from . import autograd, cuda, nn, optim, profiler, utils  # noqa: E402,F401

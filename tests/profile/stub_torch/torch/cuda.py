import time
import warnings

import torch

_mode = [0]


def is_available():
    return True


def set_sync_debug_mode(mode):
    _mode[0] = mode


def _block(name, us=200):
    start = torch._now_us()
    time.sleep(us / 1e6)
    torch._event("cuda_runtime", name, start, torch._now_us())


def synchronize():
    _block("cudaDeviceSynchronize")


def _item():
    """What Tensor.item() does: it blocks, and torch hands the sync debug mode's warning to
    Python once the operator has returned."""
    start = torch._now_us()
    _block("cudaStreamSynchronize")
    torch._event("cpu_op", "aten::item", start, torch._now_us())
    if _mode[0]:
        warnings.warn("called a synchronizing CUDA operation", UserWarning)

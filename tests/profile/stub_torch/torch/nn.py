import time

import torch


class _Loss:
    def backward(self):
        torch.autograd.backward(None)


class Linear:
    """Constructing one takes the host 20 ms (its parameters initialised), the GPU idle."""

    def __init__(self, in_features, out_features):
        time.sleep(0.02)

    def __call__(self, x):
        torch._kernel(300)
        return _Loss()

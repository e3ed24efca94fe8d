from . import profiler  # noqa: F401


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward calls this through the module, as torch's does."""

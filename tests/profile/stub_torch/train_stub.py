import sys
import time

import torch
from torch.utils.data.dataloader import _BaseDataLoaderIter

optimizer = torch.optim.Optimizer()
steps = int(sys.argv[1])
host_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
ends_at = sys.argv[3] if len(sys.argv) > 3 else "optimizer"  # what a step ends with
for batch in _BaseDataLoaderIter(steps):
    time.sleep(host_ms / 1000)
    torch._kernel(300)
    if ends_at != "batch":
        torch.autograd.backward(None)
    if ends_at == "optimizer":
        optimizer.step()
    torch.cuda._item()
    torch.cuda.synchronize()
print("wrapped after the run:", torch.cuda.synchronize.__name__, torch.autograd.backward.__name__)

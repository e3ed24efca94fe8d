import sys
import time

import torch
from torch.utils.data.dataloader import _BaseDataLoaderIter

optimizer = torch.optim.Optimizer()
steps = int(sys.argv[1])
host_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
for batch in _BaseDataLoaderIter(steps):
    time.sleep(host_ms / 1000)
    torch._kernel(300)
    optimizer.step()
    torch.cuda._item()
    torch.cuda.synchronize()
print("wrapped after the run:", torch.cuda.synchronize.__name__)

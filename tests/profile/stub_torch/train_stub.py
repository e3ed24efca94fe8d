import sys

import torch
from torch.utils.data.dataloader import _BaseDataLoaderIter

optimizer = torch.optim.Optimizer()
steps = int(sys.argv[1])
for batch in _BaseDataLoaderIter(steps):
    torch._kernel(300)
    optimizer.step()
    torch.cuda._item()
    torch.cuda.synchronize()
print("wrapped after the run:", torch.cuda.synchronize.__name__)

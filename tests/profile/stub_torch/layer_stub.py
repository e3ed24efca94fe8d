"""A step loop that builds a layer every step (GL503): the host's time at that line, the GPU
idle meanwhile, is the finding's evidence."""

import sys

import torch
from torch.utils.data.dataloader import _BaseDataLoaderIter

optimizer = torch.optim.Optimizer()
for batch in _BaseDataLoaderIter(int(sys.argv[1])):
    layer = torch.nn.Linear(1024, 1024)
    loss = layer(batch)
    loss.backward()
    optimizer.step()

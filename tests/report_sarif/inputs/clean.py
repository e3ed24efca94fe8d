# A CUDA training loop with nothing to report: the SARIF has a run with no results.
import torch
from torch import nn
from torch.utils.data import DataLoader


def train(dataset):
    model = nn.Linear(10, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 100 == 0:
            print(loss.item())

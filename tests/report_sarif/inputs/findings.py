# Findings with related locations (a helper called every step) and with fixes that insert
# (DataLoader options) and replace (the deprecated autocast), so the SARIF carries
# relatedLocations and fixes of both kinds.
import torch
from torch import nn
from torch.utils.data import DataLoader


def log_loss(loss):
    print(loss.item())  # expect: GL101 GL104


def train(dataset):
    model = nn.Linear(10, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=64)  # expect: GL201 GL202
    with torch.cuda.amp.autocast(dtype=torch.bfloat16):  # expect: GL402
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            log_loss(loss)

import torch
from torch.utils.data import DataLoader


def main(dataset, model, optimizer):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    for x, y in loader:
        x = x.cuda()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(loss.item())

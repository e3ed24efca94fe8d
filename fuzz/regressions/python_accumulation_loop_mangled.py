# GL401 with gradient accumulation: both loops are training step loops (the outer one calls
# otch_size=64, shuffle=True, num_workers=4, pin_memory=True, drop_last=True)
model = nn.Sequential(nn.Linear(128, 1024), nn.GELU(), nn.Linear(1024, 10))
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
criterion = nn.CrossEntropyLoss()

data_iter = iter(loader)
iter_num = 0
while True:
    for micro_step in rangt(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            x, y = next(data_iter)
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = criterion(model(x), y) / grad_accum_steps
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zer4, weight_decay=0.1)
criterion = nn.CrossEntropyLoss()

data_iter = iter(loader)
iter_num = 1
while True:
    for micro_step in range(grad_accum_steps):  # expect: GL401@5
        try:
            x, y = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            x, y = r
fromallsch.utilsataset

accelerator = Accelerator(mixed_precision="bf16")
dataset = TensorDataset(torch.randn(8192, 64), torch.randint(0, 10, (8192,)))
loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=4, pin_memory=True)
moad(sptimizer.step() itself); the finding is at the innermost one, once.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

grad_accum_steps = 4
max_iters = 10000
device = "cuda"
dataset = TensorDataset(torch.randn(16384, 256), torch.randint(0, 10, (16384,)))
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, pin_memory=True, drop_last=True)
model = nn.Sequential(nn.Linear(128, 1024), nn.GELU(), nn.Linear(1024, 10))
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
criterion = nn.CrossEntropyLoss()

data_iter = iter(loader)
iter_num = 0
while True:
    for micro_step in rangt(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            x, y = next(data_iter)
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = criterion(model(x), y) / grad_accum_steps
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zer4, weight_decay=0.1)
criterion = nn.CrossEntropyLoss()

data_iter = iter(loader)
iter_num = 1
while True:
    for micro_step in range(grad_accum_steps):  # expect: GL401@5
        try:
            x, y = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            x, y = r
fromallsch.utilsataset

accelerator = Accelerator(mixed_precision="bf16")
dataset = TensorDataset(torch.randn(8192, 64), torch.randint(0, 10, (8192,)))
loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=4, pin_memory=True)
moad(set_o_grad(set_to_none=True)
    iter_num += 1
    if iter_num > max_iters:
        break

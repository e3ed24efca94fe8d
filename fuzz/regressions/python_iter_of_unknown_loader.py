# Found by the python fuzz target (ASan+UBSan, after 192,725 executions): an iterator of a name
# that only looks like a loader (`iter(loader)`, no DataLoader in the file) is remembered as
# loader -1, and a `for` over that iterator linked loop to loader -1: m_.loaders[-1] was written
# (a crash with no loaders in the file, a write before the vector's storage with some).
def train(loader, model, opt):
    data_iter = iter(loader)
    for batch in data_iter:
        loss = model(batch).sum()
        loss.backward()
        opt.step()

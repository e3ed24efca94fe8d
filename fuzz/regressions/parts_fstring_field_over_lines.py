# Found by the parts fuzz target (ASan+UBSan, after 28,112 executions): an f-string whose
# replacement field runs over lines, its format spec holding what looks like a statement. The
# grammar reads the field on to its `}`; the cutter ended every single-quoted string at its
# line's end, so it cut before `import` inside the field, and the parts differed from the whole
# parse.
def log_loss(loss, step):
    print(f"step {step}: loss {loss:.4f
import torch
    }")


log_loss(None, 0)

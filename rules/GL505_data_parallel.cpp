#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
Flags `nn.DataParallel(...)` and the functional `nn.parallel.data_parallel(...)`.

## Why is this bad
DataParallel drives all GPUs from one process with one thread each, so the GIL serialises the
Python work of every replica. Every step it copies the model's parameters from the first GPU to
the others, scatters the batch from it and gathers the outputs back onto it: the first GPU does
more work and holds more memory than the rest, and the others wait for it.
`DistributedDataParallel` runs one process per GPU and overlaps the gradient all-reduce with the
backward pass; the PyTorch docs recommend it even on a single machine.

## Example
```python
model = nn.DataParallel(Net()).cuda()
```

## Use instead
```python
# torchrun --nproc_per_node=NUM_GPUS train.py
import os

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = DDP(Net().to(local_rank), device_ids=[local_rank])
```
)md";

void check(const RuleInput& in, Sink& sink) {
  for (const ApiUse& use : in.model.api_uses) {
    if (use.kind != ApiKind::DataParallel) continue;
    sink.report({use.span,
                 "`" + use.spelling +
                     "` drives every GPU from one process: the GIL, per-step parameter copies and "
                     "scatter/gather through the first GPU limit scaling",
                 {},
                 {}});
  }
}

}  // namespace

extern const Rule GL505 = {{"GL505",
                            "data-parallel",
                            "overhead",
                            "Single-process DataParallel",
                            "use `DistributedDataParallel` with one process per GPU (`torchrun`)",
                            {},
                            kDocs,
                            true,
                            Severity::Warning},
                           check};

}  // namespace gpulint::rules

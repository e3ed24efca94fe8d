// The Python front end's step model, piece by piece: loop kinds, guards, the call graph,
// hooks, loader resolution, device facts, tensor-ness and AMP.

#include <gtest/gtest.h>

#include <string>

#include "analyzer/python/front_end.h"

namespace gpulint {
namespace {

StepModel build(const std::string& src) { return python::build_model(src); }

std::vector<LoopKind> kinds(const StepModel& m) {
  std::vector<LoopKind> out;
  for (const Loop& l : m.loops) out.push_back(l.kind);
  return out;
}

const HostSync& sync_named(const StepModel& m, const std::string& spelling) {
  for (const HostSync& s : m.syncs) {
    if (s.spelling == spelling) return s;
  }
  ADD_FAILURE() << "no sync " << spelling;
  static HostSync none;
  return none;
}

TEST(StepModel, EpochLoopAroundTrainingLoop) {
  StepModel m = build(R"(
for epoch in range(10):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
    scheduler.step()
)");
  EXPECT_EQ(kinds(m), (std::vector<LoopKind>{LoopKind::Epoch, LoopKind::Training}));
}

TEST(StepModel, GradientAccumulationMakesBothLoopsTraining) {
  StepModel m = build(R"(
for step in range(max_steps):
    for micro in range(accum):
        x, y = next(data_iter)
        loss = model(x, y)
        loss.backward()
    optimizer.step()
)");
  EXPECT_EQ(kinds(m), (std::vector<LoopKind>{LoopKind::Training, LoopKind::Training}));
  EXPECT_EQ(m.innermost_training_loops(), std::vector<int32_t>{1});
}

TEST(StepModel, LoaderIterationWithoutBackwardIsEvaluation) {
  StepModel m = build(R"(
model.eval()
for images, labels in val_loader:
    out = model(images)
)");
  EXPECT_EQ(kinds(m), std::vector<LoopKind>{LoopKind::Evaluation});
}

TEST(StepModel, OrdinaryLoopIsNotAStepLoop) {
  StepModel m = build(R"(
for name, value in metrics.items():
    print(name, value.item())
)");
  EXPECT_EQ(kinds(m), std::vector<LoopKind>{LoopKind::Other});
  EXPECT_FALSE(m.step_context(m.syncs.at(0).scope).per_step());
}

TEST(StepModel, ModuleContainerAndForwardLoopsNeverStep) {
  StepModel m = build(R"(
class Net(nn.Module):
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
for p in model.parameters():
    p.grad = None
)");
  EXPECT_EQ(kinds(m), (std::vector<LoopKind>{LoopKind::Other, LoopKind::Other}));
}

TEST(StepModel, HelperCalledFromStepLoopIsPerStepAndNamesTheCallSite) {
  std::string src = R"(
def log_metrics(loss):
    print(loss.item())

def train():
    for x, y in train_loader:
        loss = model(x)
        loss.backward()
        log_metrics(loss)
)";
  StepModel m = build(src);
  StepContext c = m.step_context(sync_named(m, ".item()").scope);
  ASSERT_TRUE(c.per_step());
  ASSERT_EQ(c.via.size(), 1u);
  EXPECT_EQ(src.substr(c.via[0].begin, c.via[0].end - c.via[0].begin), "log_metrics(loss)");
}

TEST(StepModel, HelperCalledOnceAnEpochIsNotPerStep) {
  StepModel m = build(R"(
def train_one_epoch():
    for x, y in train_loader:
        loss = model(x)
        loss.backward()
    print(loss.item())

for epoch in range(3):
    train_one_epoch()
)");
  EXPECT_EQ(kinds(m), (std::vector<LoopKind>{LoopKind::Training, LoopKind::Epoch}));
  EXPECT_FALSE(m.step_context(sync_named(m, ".item()").scope).per_step());
}

TEST(StepModel, IntervalGuardsAndRankBranches) {
  StepModel m = build(R"(
for step, (x, y) in enumerate(loader):
    loss = model(x)
    loss.backward()
    if step % args.log_interval == 0:
        a = loss.item()
    if it % eval_interval == 0 and master_process:
        b = loss.tolist()
    if rank == 0:
        print("step")
    if loss > best:
        c = float(loss)
)");
  EXPECT_TRUE(m.step_context(sync_named(m, ".item()").scope).interval_guarded);
  EXPECT_TRUE(m.step_context(sync_named(m, ".tolist()").scope).interval_guarded);
  StepContext rank = m.step_context(m.outputs.at(0).scope);
  EXPECT_TRUE(rank.every_step);
  StepContext data = m.step_context(sync_named(m, "float(loss)").scope);
  EXPECT_FALSE(data.interval_guarded);
  EXPECT_FALSE(data.every_step);
}

TEST(StepModel, LightningAndHuggingFaceHooksArePerStep) {
  StepModel m = build(R"(
class Lit(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        print(batch_idx)
    def configure_optimizers(self):
        print("once")

class MyTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        print("per step")
)");
  ASSERT_EQ(m.outputs.size(), 3u);
  EXPECT_TRUE(m.step_context(m.outputs[0].scope).hook);
  EXPECT_FALSE(m.step_context(m.outputs[1].scope).per_step());
  EXPECT_TRUE(m.step_context(m.outputs[2].scope).hook);
}

TEST(StepModel, LoaderKeywordsResolveThroughConstantsAndDicts) {
  StepModel m = build(R"(
WORKERS = 6
kwargs = {"num_workers": 2, "pin_memory": True}
a = DataLoader(ds, batch_size=32, num_workers=WORKERS)
b = DataLoader(ds, 16, **kwargs)
c = DataLoader(ds, **dict(num_workers=0, batch_size=4))
d = DataLoader(ds, num_workers=args.workers)
e = DataLoader(ds, **({"pin_memory": True} if use_cuda else {}))
f = DataLoader(ds, **opts)
)");
  ASSERT_EQ(m.loaders.size(), 6u);
  EXPECT_TRUE(m.loaders[0].num_workers.known());
  EXPECT_EQ(m.loaders[0].num_workers.number, 6);
  EXPECT_TRUE(m.loaders[0].pin_memory.absent());
  EXPECT_EQ(m.loaders[1].num_workers.number, 2);
  EXPECT_EQ(m.loaders[1].batch_size.number, 16);
  EXPECT_EQ(m.loaders[1].pin_memory.number, 1);
  EXPECT_EQ(m.loaders[2].num_workers.number, 0);
  EXPECT_EQ(m.loaders[2].batch_size.number, 4);
  EXPECT_EQ(m.loaders[3].num_workers.state, Value::State::Unknown);
  EXPECT_EQ(m.loaders[4].pin_memory.number, 1);
  EXPECT_EQ(m.loaders[5].num_workers.state, Value::State::Unknown);
}

TEST(StepModel, LoaderReadOnceIsNotATrainingLoader) {
  StepModel m = build(R"(
loader = DataLoader(ds, batch_size=8)
sample = next(iter(loader))
for x, y in other_loader:
    loss = model(x)
    loss.backward()
)");
  ASSERT_EQ(m.loaders.size(), 1u);
  EXPECT_TRUE(m.loaders[0].read_once);
  EXPECT_FALSE(m.loader_in_training_file(m.loaders[0]));
}

TEST(StepModel, CudaContextNeedsAMoveThatMayBeCuda) {
  EXPECT_FALSE(build("x = torch.ones(3)\ny = x.to('cpu')\n").cuda_context());
  EXPECT_TRUE(build("model.cuda()\n").cuda_context());
  EXPECT_TRUE(build("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                    "model.to(device)\n")
                  .cuda_context());
  EXPECT_FALSE(build("device = torch.device('cpu')\nmodel.to(device)\n").cuda_context());
  EXPECT_FALSE(build("x = x.to(torch.float16)\n").cuda_context());
  EXPECT_TRUE(build("t = torch.zeros(3, device='cuda')\n").cuda_context());
  EXPECT_TRUE(build("trainer = pl.Trainer(accelerator='gpu')\n").cuda_context());
  EXPECT_FALSE(build("trainer = pl.Trainer(accelerator='cpu')\n").cuda_context());
}

TEST(StepModel, FloatOfATensorOnly) {
  StepModel m = build(R"(
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    a = float(loss)
    b = float(args.lr)
    c = int(x.sum())
)");
  ASSERT_EQ(m.syncs.size(), 2u);
  EXPECT_EQ(m.syncs[0].spelling, "float(loss)");
  EXPECT_EQ(m.syncs[1].spelling, "int(x.sum())");
}

TEST(StepModel, AutocastInLoopHelperOrContextVariable) {
  const char* loop = R"(
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x)
    loss.backward()
)";
  StepModel a = build(loop);
  EXPECT_TRUE(a.amp_in_effect(0));

  StepModel b = build(R"(
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
for x, y in loader:
    with ctx:
        loss = model(x)
    loss.backward()
)");
  EXPECT_TRUE(b.amp_in_effect(0));

  StepModel c = build(R"(
def step(x):
    with torch.amp.autocast("cuda"):
        return model(x)
for x, y in loader:
    loss = step(x)
    loss.backward()
)");
  EXPECT_TRUE(c.amp_in_effect(0));

  StepModel d = build(R"(
model = model.half().float()
model.train()
for x, y in loader:
    loss = model(x)
    loss.backward()
)");
  EXPECT_FALSE(d.amp_in_effect(0));

  StepModel e = build(R"(
model.train()
model.bfloat16()
for x, y in loader:
    loss = model(x)
    loss.backward()
)");
  EXPECT_TRUE(e.amp_in_effect(0));
}

TEST(StepModel, UnmovedBatchReachesTheModel) {
  StepModel m = build(R"(
model = Net().to(device)
for x, y in train_loader:
    out = model(x)
    y = y.to(device)
    loss = criterion(out, y)
    loss.backward()
)");
  ASSERT_EQ(m.unmoved_inputs.size(), 1u);
  EXPECT_EQ(m.unmoved_inputs[0].name, "x");
  EXPECT_EQ(m.moved_models, std::vector<std::string>{"model"});
}

TEST(StepModel, DeepNestingIsReportedNotCrashed) {
  std::string src = "x = " + std::string(5000, '(') + "1" + std::string(5000, ')') + "\n";
  StepModel m = build(src);
  EXPECT_FALSE(m.parse_errors.empty());
}

TEST(StepModel, SyntaxErrorIsRecordedAndTheRestAnalysed) {
  StepModel m = build(R"(
def broken(:
    pass
model.cuda()
for x, y in loader:
    loss = model(x)
    loss.backward()
    total += loss.item()
)");
  EXPECT_FALSE(m.parse_errors.empty());
  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_TRUE(m.step_context(m.syncs[0].scope).per_step());
}

}  // namespace
}  // namespace gpulint

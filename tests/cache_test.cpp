// The result cache through the real binary: a warm run reports exactly what a cold one does,
// and every input a result depends on (the file, another file that calls into it, the config)
// invalidates it.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/cli_harness.h"

namespace {

namespace fs = std::filesystem;
using gpulint::testing::Result;

const char kTrain[] = R"(import torch

from helpers import log_step

model = torch.nn.Linear(8, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(4, 8, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    log_step(loss)
)";

const char kHelpers[] = R"(def log_step(loss):
    return loss.item()
)";

class Cache : public gpulint::testing::GpulintRun {
 protected:
  Result json_run(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"check", "--format", "json", "."};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }
  fs::path cache_file() const { return work_ / ".gpulint_cache/0.1.0/results.msgpack"; }
};

TEST_F(Cache, WarmRunReportsWhatAColdRunDoes) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  const Result cold = json_run();
  ASSERT_EQ(cold.status, 1) << cold.err;
  EXPECT_NE(cold.out.find("\"GL101\""), std::string::npos) << cold.out;
  ASSERT_TRUE(fs::exists(cache_file()));
  EXPECT_TRUE(fs::exists(work_ / ".gpulint_cache/.gitignore"));
  const Result warm = json_run();
  EXPECT_EQ(warm.status, cold.status);
  EXPECT_EQ(warm.out, cold.out);
  EXPECT_EQ(json_run({"--no-cache"}).out, cold.out);
}

TEST_F(Cache, EditedFileIsAnalysedAgain) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  ASSERT_EQ(json_run().status, 1);
  write("helpers.py", "def log_step(loss):\n    return loss.detach()\n");
  EXPECT_EQ(json_run().status, 0);
}

TEST_F(Cache, ACallerChangeReachesTheUnchangedHelper) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  ASSERT_EQ(json_run().status, 1);
  // The helper's bytes are the same; only the call that made it per-step is gone.
  std::string train = kTrain;
  train.replace(train.find("    log_step(loss)"), 18, "    pass");
  write("train.py", train);
  const Result r = json_run();
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(Cache, ConfigChangeIsAnalysedAgain) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  ASSERT_EQ(json_run().status, 1);
  write(".gpulint.toml", "ignore = [\"GL101\"]\n");
  EXPECT_EQ(json_run().status, 0);
}

TEST_F(Cache, BrokenCacheFileIsAColdStart) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  const Result cold = json_run();
  std::ofstream(cache_file(), std::ios::binary | std::ios::trunc) << "\x92\xa3not a cache";
  const Result again = json_run();
  EXPECT_EQ(again.status, cold.status) << again.err;
  EXPECT_EQ(again.out, cold.out);
  EXPECT_EQ(again.err, "");
}

TEST_F(Cache, NoCacheAndCacheDir) {
  write("train.py", kTrain);
  write("helpers.py", kHelpers);
  json_run({"--no-cache"});
  EXPECT_FALSE(fs::exists(work_ / ".gpulint_cache"));
  json_run({"--cache-dir", "elsewhere"});
  EXPECT_TRUE(fs::exists(work_ / "elsewhere/0.1.0/results.msgpack"));
  EXPECT_FALSE(fs::exists(work_ / ".gpulint_cache"));
}

}  // namespace

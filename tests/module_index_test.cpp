#include "analyzer/core/module_index.h"

#include <gtest/gtest.h>

namespace gpulint {
namespace {

TEST(ModuleIndex, ResolvesRelativeAndAbsoluteImports) {
  ModuleIndex index({"proj/train.py", "proj/utils.py", "proj/models/net.py"});
  EXPECT_EQ(index.resolve("proj/train.py", ".utils"), 1);
  EXPECT_EQ(index.resolve("proj/train.py", "models.net"), 2);
  EXPECT_EQ(index.resolve("proj/models/net.py", "..utils"), 1);
  EXPECT_EQ(index.resolve("proj/train.py", "torch.nn"), -1);
}

TEST(ModuleIndex, CodeCopiedOutOfAMonorepoKeepsItsLongImports) {
  ModuleIndex index({"moco/main.py", "moco/builder.py", "utils.py"});
  EXPECT_EQ(index.resolve("moco/main.py", "company.research.moco.builder"), 1);
  // One component is too common a name to guess from.
  EXPECT_EQ(index.resolve("moco/main.py", "torch.utils"), -1);
  EXPECT_EQ(index.resolve("moco/main.py", "company.research.moco.missing"), -1);
}

}  // namespace
}  // namespace gpulint

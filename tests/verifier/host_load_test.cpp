#include "verifier/harness/host_load.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gpulint::verifier {
namespace {

TEST(VerifierHostLoad, ProcStatAggregateLineGivesBusyAndSteal) {
  const auto t = parse_proc_stat(
      "cpu  1000 20 300 90000 50 7 3 40 0 0\ncpu0 500 10 150 45000 25 4 2 20 0 0\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->busy, 1000 + 20 + 300 + 7 + 3);  // idle and iowait are not busy
  EXPECT_EQ(t->steal, 40);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\n"));  // truncated
}

TEST(VerifierHostLoad, SelfStatSumsOwnAndWaitedChildrenTimeAfterTheName) {
  // A command name with spaces and a parenthesis: fields count from the last ')'.
  const auto own = parse_self_stat(
      "4242 (gpulint (v) x) R 1 4242 4242 0 -1 4194304 100 0 0 0 70 30 5 2 20 0 1 0 1 2 3\n");
  ASSERT_TRUE(own);
  EXPECT_EQ(*own, 70 + 30 + 5 + 2);
  EXPECT_FALSE(parse_self_stat("4242 gpulint R 1"));
  EXPECT_FALSE(parse_self_stat("4242 (x) R 1 2"));
}

TEST(VerifierHostLoad, OtherProcessesAreTheBusyTicksThisProcessDidNotUse) {
  const CpuTicks start{1000, 10, 200};
  const CpuTicks end{1000 + 450, 10 + 20, 200 + 50};
  const HostLoad load = host_load_between(start, end, 2.0, 100);
  EXPECT_DOUBLE_EQ(load.other_cores, 2.0);  // (450 - 50) ticks over 2 s at 100 ticks/s
  EXPECT_DOUBLE_EQ(load.steal_cores, 0.1);
  EXPECT_DOUBLE_EQ(host_load_between(start, end, 0, 100).other_cores, -1);
}

TEST(VerifierHostLoad, MeterReadsThisMachine) {
  const HostLoadMeter meter;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const HostLoad load = meter.load();
  ASSERT_GE(load.other_cores, 0) << "/proc/stat and /proc/self/stat should be readable";
  EXPECT_GE(load.steal_cores, 0);
}

}  // namespace
}  // namespace gpulint::verifier

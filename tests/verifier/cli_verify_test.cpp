// `gpulint verify` on the CPU: a stand-in verifier (a shell script that hands back a canned
// report) checks the child-process protocol, the exit codes, the table and the costs that
// findings carry in every format.

#ifdef GPULINT_BINARY

#include <sys/stat.h>

#include "tests/cli_harness.h"
#include "tests/verifier/sample_report.h"

namespace gpulint::testing {
namespace {

class VerifyCommand : public GpulintRun {
 protected:
  // A verifier that copies `report` to its --output file and exits with `status`.
  std::string fake_verifier(const std::string& report, int status) {
    write("canned.json", report);
    const std::string script =
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n"
        "  if [ \"$1\" = --output ]; then cp " +
        quote((work_ / "canned.json").string()) +
        " \"$2\"; fi\n  shift\ndone\necho chatter >&2\nexit " + std::to_string(status) + "\n";
    write("fake-verifier", script);
    const fs::path path = work_ / "fake-verifier";
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
    return "GPULINT_VERIFIER=" + quote(path.string());
  }

  std::string sample() { return verifier::to_json(verifier::testing::sample_report()); }
};

TEST_F(VerifyCommand, MissingVerifierExitsThreeWithOneLine) {
  const Result r = run({"verify"}, "GPULINT_VERIFIER=/nonexistent/gpulint-verifier");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err,
            "gpulint: error: GPULINT_VERIFIER=/nonexistent/gpulint-verifier is not an executable "
            "file\n");
}

TEST_F(VerifyCommand, NoGpuExitsThreeWithTheVerifiersReason) {
  const std::string env = fake_verifier(
      R"({"schema": "gpulint-verifier/1", "unavailable": {"reason": "no-gpu",
          "message": "no CUDA GPU is visible"}})",
      3);
  const Result r = run({"verify"}, env);
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "gpulint: error: no CUDA GPU is visible\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(VerifyCommand, TableListsFiguresAndCostsAndWarnsOfFailedExperiments) {
  const Result r = run({"verify", "--rules", "GL101,GL202"}, fake_verifier(sample(), 0));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("gpulint verify on NVIDIA Test GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GL101 item-in-loop"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+20.0 us/step"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("experiment transfer failed: cudaErrorMemoryAllocation"), std::string::npos)
      << r.err;
}

// The costs are kept in the cache directory, where `gpulint server` reads them for its hover.
TEST_F(VerifyCommand, CostsAreKeptForTheEditor) {
  ASSERT_EQ(run({"verify", "--rules", "GL101,GL202"}, fake_verifier(sample(), 0)).status, 0);
  const fs::path cache = work_ / ".gpulint_cache";
  EXPECT_TRUE(fs::exists(cache / ".gitignore"));
  std::string kept;
  for (const auto& entry : fs::directory_iterator(cache)) {
    if (entry.is_directory()) kept = slurp(entry.path() / "costs.json");
  }
  EXPECT_NE(kept.find("\"device\": \"NVIDIA Test GPU"), std::string::npos) << kept;
  EXPECT_NE(kept.find("\"code\": \"GL101\""), std::string::npos) << kept;
  EXPECT_NE(kept.find("+20.0 us/step"), std::string::npos) << kept;
  // Elsewhere, through GPULINT_CACHE_DIR.
  ASSERT_EQ(run({"verify", "--rules", "GL101"},
                fake_verifier(sample(), 0) + " GPULINT_CACHE_DIR=" + quote((work_ / "c").string()))
                .status,
            0);
  EXPECT_TRUE(fs::exists(work_ / "c" / ".gitignore"));
}

TEST_F(VerifyCommand, RulesWithoutExperimentsAreAUsageError) {
  const Result r = run({"verify", "--rules", "GL502"}, fake_verifier(sample(), 0));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("GL502 has no verifier experiment"), std::string::npos) << r.err;
}

TEST_F(VerifyCommand, BadParameterIsAUsageError) {
  const Result r = run({"verify", "--batch-shape", "64xx3"}, fake_verifier(sample(), 0));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("shape"), std::string::npos) << r.err;
}

TEST_F(VerifyCommand, JsonTableCarriesTheReportAndCosts) {
  const Result r = run({"verify", "--format", "json"}, fake_verifier(sample(), 0));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verifier"]["device"]["name"], "NVIDIA Test GPU");
  EXPECT_EQ(j["costs"][0]["code"], "GL101");
  EXPECT_DOUBLE_EQ(j["costs"][0]["value"].get<double>(), 20.0);
}

TEST_F(VerifyCommand, FindingsCarryTheirCostInEveryFormat) {
  const fs::path fixture = fs::path(GPULINT_SOURCE_DIR) / "fixtures/python/GL101_item_in_loop.py";
  const std::string env = fake_verifier(sample(), 0);

  const Result json = run({"verify", fixture.string(), "--format", "json"}, env);
  EXPECT_EQ(json.status, 1) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_FALSE(j["diagnostics"].empty());
  for (const nlohmann::json& d : j["diagnostics"]) {
    if (d["code"] != "GL101") continue;
    EXPECT_EQ(d["cost"]["experiment"], "sync");
    EXPECT_DOUBLE_EQ(d["cost"]["value"].get<double>(), 20.0);
    EXPECT_EQ(d["cost"]["device"], "NVIDIA Test GPU");
  }

  const Result sarif = run({"verify", fixture.string(), "--format", "sarif"}, env);
  EXPECT_EQ(sarif.status, 1) << sarif.err;
  const nlohmann::json s = nlohmann::json::parse(sarif.out);
  const nlohmann::json& result = s["runs"][0]["results"][0];
  EXPECT_EQ(result["properties"]["cost"]["unit"], "us/step");

  const Result text = run({"verify", fixture.string()}, env);
  EXPECT_EQ(text.status, 1) << text.err;
  EXPECT_NE(text.out.find("cost: +20.0 us/step (x1.25"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace gpulint::testing

#endif  // GPULINT_BINARY

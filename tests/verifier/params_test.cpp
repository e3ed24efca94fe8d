#include "verifier/harness/params.h"

#include <gtest/gtest.h>

namespace gpulint::verifier {
namespace {

TEST(VerifierParams, DefaultsAreTheDocumentedOnes) {
  const Params p;
  EXPECT_EQ(p.batch_shape, (std::vector<int64_t>{64, 3, 224, 224}));
  EXPECT_EQ(p.batch_bytes(), 64 * 3 * 224 * 224 * 4);
  EXPECT_EQ(p.gemm, (GemmShape{4096, 4096, 4096}));
  EXPECT_EQ(p.profile, "balanced");
  EXPECT_EQ(p.host_model, "auto");
  EXPECT_TRUE(p.runs("sync"));  // no list: every experiment
}

TEST(VerifierParams, FlagsRoundTrip) {
  Params p;
  p.experiments = {"sync", "precision"};
  p.steps = 37;
  p.batch_shape = {8, 3, 32, 32};
  p.gemm = {1024, 2048, 4095};
  p.batch_sizes = {1, 4};
  p.unaligned_dims = {1000, 4095};
  p.loader_cpu_ms = 2.5;
  p.profile = "compute";
  p.inject_error = "sync";
  p.host_model = "cuda";
  p.python = "/opt/venv/bin/python";
  const Params q = params_from_args(to_args(p));
  EXPECT_EQ(q.experiments, p.experiments);
  EXPECT_EQ(q.steps, 37);
  EXPECT_EQ(q.batch_shape, p.batch_shape);
  EXPECT_EQ(q.gemm, p.gemm);
  EXPECT_EQ(q.batch_sizes, p.batch_sizes);
  EXPECT_EQ(q.unaligned_dims, p.unaligned_dims);
  EXPECT_DOUBLE_EQ(q.loader_cpu_ms, 2.5);
  EXPECT_EQ(q.profile, "compute");
  EXPECT_EQ(q.inject_error, "sync");
  EXPECT_EQ(q.host_model, "cuda");
  EXPECT_EQ(q.python, "/opt/venv/bin/python");
  EXPECT_FALSE(q.runs("debug"));
}

TEST(VerifierParams, BadValuesAreRejectedWithTheirFlag) {
  EXPECT_THROW(params_from_args({"--steps", "0"}), ParamError);
  EXPECT_THROW(params_from_args({"--steps"}), ParamError);
  EXPECT_THROW(params_from_args({"--batch-shape", "64x3xx224"}), ParamError);
  EXPECT_THROW(params_from_args({"--gemm-shape", "4096x4096"}), ParamError);
  EXPECT_THROW(params_from_args({"--profile", "fast"}), ParamError);
  EXPECT_THROW(params_from_args({"--experiments", "sync,nonsense"}), ParamError);
  EXPECT_THROW(params_from_args({"--frobnicate", "1"}), ParamError);
  EXPECT_THROW(params_from_args({"--host-model", "aten"}), ParamError);
  try {
    params_from_args({"--workers", "-2"});
    FAIL();
  } catch (const ParamError& e) {
    EXPECT_NE(std::string(e.what()).find("--workers"), std::string::npos);
  }
}

TEST(VerifierParams, ShapesParseAndFormat) {
  EXPECT_EQ(parse_shape("64x3x224x224"), (std::vector<int64_t>{64, 3, 224, 224}));
  EXPECT_EQ(format_shape({2, 3}), "2x3");
  EXPECT_EQ(format_gemm(parse_gemm("1x2x3")), "1x2x3");
}

}  // namespace
}  // namespace gpulint::verifier

// The C++ front end's facts and fixes where fixtures cannot show them: language detection,
// fixes in C++ spelling, bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analyzer/core/language.h"
#include "analyzer/core/source_file.h"
#include "analyzer/cpp/front_end.h"
#include "analyzer/engine.h"
#include "rules/registry.h"

namespace gpulint {
namespace {

std::vector<Diagnostic> lint(const std::string& text) {
  std::vector<const Rule*> rules;
  for (const Rule* rule : all_rules()) {
    if (rule->info.default_on) rules.push_back(rule);
  }
  return lint_source(SourceFile("train.cpp", text), rules);
}

const Diagnostic* find(const std::vector<Diagnostic>& ds, std::string_view code) {
  for (const Diagnostic& d : ds) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

std::string apply(const std::string& text, const Fix& fix) {
  std::string out = text;
  std::vector<Edit> edits = fix.edits;
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.span.begin > b.span.begin; });
  for (const Edit& e : edits) out.replace(e.span.begin, e.span.end - e.span.begin, e.replacement);
  return out;
}

TEST(CppLanguage, ExtensionsArePickedUp) {
  for (const char* name : {"a.cpp", "a.cc", "a.cxx", "a.h", "a.hpp"})
    EXPECT_EQ(language_of(name), Language::Cpp) << name;
  EXPECT_EQ(language_of("a.py"), Language::Python);
  EXPECT_FALSE(language_of("a.c").has_value());
}

constexpr const char* kTrain = R"cpp(
  void train(torch::nn::Linear& model, torch::optim::SGD& optimizer) {
    model->to(torch::kCUDA);
    at::autocast::set_enabled(true);
    auto loader = torch::data::make_data_loader(std::move(ds),
                                                torch::data::DataLoaderOptions().batch_size(64));
    for (auto& batch : *loader) {
      auto loss = torch::mse_loss(model->forward(batch.data.to(torch::kCUDA)),
                                  batch.target.to(torch::kCUDA));
      loss.backward();
      optimizer.step();
      auto bias = torch::zeros({4}).to(torch::kCUDA);
    }
  }
)cpp";

TEST(CppFixes, WorkersAreSetOnTheOptions) {
  const std::string text = kTrain;
  const auto ds = lint(text);
  const Diagnostic* d = find(ds, "GL201");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->fix.has_value());
  EXPECT_NE(apply(text, *d->fix).find("DataLoaderOptions().batch_size(64).workers(4)"),
            std::string::npos);
}

TEST(CppFixes, FactoryGetsTheDevicePositionally) {
  const std::string text = kTrain;
  const auto ds = lint(text);
  const Diagnostic* d = find(ds, "GL303");
  ASSERT_NE(d, nullptr);
  ASSERT_TRUE(d->fix.has_value());
  EXPECT_NE(apply(text, *d->fix).find("auto bias = torch::zeros({4}, torch::kCUDA);"),
            std::string::npos);
}

TEST(CppFixes, BatchSizeArgumentHasNoWorkersFix) {
  const std::string text = R"cpp(
    void train(torch::nn::Linear& model, torch::optim::SGD& optimizer) {
      model->to(torch::kCUDA);
      auto loader = torch::data::make_data_loader(std::move(ds), 64);
      for (auto& batch : *loader) {
        model->forward(batch.data.to(torch::kCUDA)).sum().backward();
      }
    }
  )cpp";
  const Diagnostic* d = find(lint(text), "GL201");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->fix.has_value());
}

TEST(CppFrontEnd, LoaderFactsAreLibTorchs) {
  const StepModel m = cpp::build_model(kTrain);
  ASSERT_EQ(m.loaders.size(), 1u);
  EXPECT_TRUE(m.loaders[0].batch_size.known());
  EXPECT_EQ(m.loaders[0].batch_size.number, 64);
  EXPECT_TRUE(m.loaders[0].num_workers.absent());
  EXPECT_TRUE(m.loaders[0].iterated);
  // LibTorch has no pin_memory option; the Python-only rule must stay silent.
  EXPECT_FALSE(m.loaders[0].pin_memory.absent());
  ASSERT_EQ(m.loops.size(), 1u);
  EXPECT_EQ(m.loops[0].kind, LoopKind::Training);
}

TEST(CppFrontEnd, BrokenSourceReportsParseErrorAndKeepsTheRest) {
  const std::string text = R"cpp(
    void train(torch::nn::Linear& model, torch::optim::SGD& optimizer, L& loader) {
      model->to(torch::kCUDA);
      for (auto& batch : *loader) {
        auto loss = model->forward(batch.data.to(torch::kCUDA)).sum();
        loss.backward();
        float v = loss.item<float>();
    int broken = ((;
      }
    }
  )cpp";
  const auto ds = lint(text);
  // tree-sitter-cpp's recoveries are mostly valid code it cannot read (macros, `= {}`), so
  // GL000 is Clang's alone; the parse error is kept for the run's note.
  EXPECT_EQ(find(ds, "GL000"), nullptr);
  EXPECT_NE(find(ds, "GL101"), nullptr);
  const StepModel m = cpp::build_model(text);
  ASSERT_FALSE(m.parse_errors.empty());
  EXPECT_FALSE(m.parse_errors.front().in_source);
}

TEST(CppFrontEnd, ValidCodeTheSyntaxParserCannotReadIsNoParseError) {
  const std::string text = R"cpp(
    QT_BEGIN_NAMESPACE
    namespace Ui { class MainWindow; }
    QT_END_NAMESPACE
    struct Options {
      TORCH_ARG(int64_t, workers) = 3;
    };
    torch::Tensor pad(const torch::Tensor& x, std::vector<int64_t> sizes = {}, float v = {0.0});
  )cpp";
  EXPECT_EQ(find(lint(text), "GL000"), nullptr);
}

TEST(CppFrontEnd, SurvivesGarbageAndDeepNesting) {
  std::string deep(5000, '(');
  EXPECT_NO_THROW(cpp::build_model(deep));
  std::string braces;
  for (int i = 0; i < 3000; ++i) braces += "for(;;){";
  EXPECT_NO_THROW(cpp::build_model(braces));
  EXPECT_NO_THROW(cpp::build_model(std::string("\xff\xfe\x00\x01", 4)));
}

TEST(CppFrontEnd, ExportMacrosAreNotParseErrors) {
  const std::string text =
      "namespace at {\nTORCH_API at::Tensor reshape_as(const at::Tensor& self);\n"
      "struct C10_API Holder { int x; };\n}\n";
  const StepModel m = cpp::build_model(text);
  EXPECT_TRUE(m.parse_errors.empty());
}

}  // namespace
}  // namespace gpulint

#include <algorithm>

#include "rules/common.h"

namespace gpulint::rules {
namespace {

constexpr std::string_view kDocs = R"md(## What it does
In a file that trains under mixed precision, flags literal feature and channel sizes of
`nn.Linear`, `nn.Embedding` and `nn.Conv1d` / `nn.Conv2d` / `nn.Conv3d` (the first two
arguments, or `in_features=` / `out_features=` / `num_embeddings=` / `embedding_dim=` /
`in_channels=` / `out_channels=`) that are not multiples of 8.

## Why is this bad
FP16 and BF16 tensor-core kernels work on tiles whose sides are multiples of 8 elements. A GEMM
with a dimension such as 50257 or 1000 is padded internally or falls back to slower kernels;
rounding the size up (a larger vocabulary, a few more channels) is often faster despite the
extra work.

## Example
```python
model = nn.Sequential(
    nn.Embedding(50257, 768),
    nn.Linear(768, 50257, bias=False),
)
```

## Use instead
```python
vocab_size = 50304  # 50257 rounded up to a multiple of 64
model = nn.Sequential(
    nn.Embedding(vocab_size, 768),
    nn.Linear(768, vocab_size, bias=False),
)
```
)md";

bool is_gemm_module(std::string_view spelling) {
  const size_t dot = spelling.rfind('.');
  const std::string_view tail = dot == std::string_view::npos ? spelling : spelling.substr(dot + 1);
  return tail == "Linear" || tail == "Embedding" || tail == "Conv1d" || tail == "Conv2d" ||
         tail == "Conv3d";
}

// Only the first two positional arguments, or the size keywords, are sizes: in
// `nn.Conv2d(c, c, 3)` the 3 is the kernel.
bool is_size_argument(const LiteralArgument& a) {
  static constexpr std::string_view kSizeKeywords[] = {"in_features",    "out_features",
                                                       "num_embeddings", "embedding_dim",
                                                       "in_channels",    "out_channels"};
  if (a.keyword.empty()) return a.position >= 0 && a.position < 2;
  return std::find(std::begin(kSizeKeywords), std::end(kSizeKeywords), a.keyword) !=
         std::end(kSizeKeywords);
}

void check(const RuleInput& in, Sink& sink) {
  const StepModel& m = in.model;
  const bool amp = m.file_level_amp || std::any_of(m.autocasts.begin(), m.autocasts.end(),
                                                   [](const Autocast& a) { return !a.cpu; });
  if (!amp) return;
  for (const ModuleConstruction& mc : m.modules) {
    if (!is_gemm_module(mc.spelling)) continue;
    for (const LiteralArgument& a : mc.dims) {
      if (a.value % 8 == 0 || !is_size_argument(a)) continue;
      const int64_t dim = a.value;
      Finding f{a.span,
                "`" + mc.spelling + "` size " + std::to_string(dim) +
                    " is not a multiple of 8: its half-precision GEMMs miss the tensor-core "
                    "tile shape",
                {},
                {}};
      if (dim > 0) f.parameters.emplace_back("dimension", dim);
      sink.report(std::move(f));
    }
  }
}

}  // namespace

extern const Rule GL405 = {{"GL405",
                            "unaligned-gemm-dims",
                            "precision",
                            "Layer size not a multiple of 8 under mixed precision",
                            "round the size up to a multiple of 8 (64 for vocabularies)",
                            {},
                            kDocs,
                            false,
                            Severity::Warning},
                           check,
                           {"precision", "gemm.bf16.k{dim}", "gemm.bf16.k{dim_aligned}",
                            "a BF16 GEMM with K={dim} vs K={dim_aligned}"},
                           0};

}  // namespace gpulint::rules

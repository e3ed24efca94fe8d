// libFuzzer target for parsing a large Python file in parts (analyzer/python/text_parts.h):
// with parts of one byte, every statement and every piece of every list with commas is parsed
// on its own, and the copy must be the tree a parse of the whole text gives when that has no
// syntax error (and must hold an error when it has). The cutter reads strings, brackets,
// comments and continuations by hand, which is where hostile bytes find what tests miss. Only
// text gpulint admits (admit_text) is ever cut into parts, so only that text is tried.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/engine.h"
#include "analyzer/flat_tree.h"
#include "analyzer/python/text_parts.h"
#include "tests/flat_walk.h"

extern "C" const TSLanguage* tree_sitter_python(void);

namespace {

using Entry = gpulint::testing::FlatEntry;

std::vector<Entry> walk_of(const gpulint::FlatTree& tree) {
  std::vector<Entry> out;
  if (!tree.root().null() && !gpulint::testing::flat_walk(tree.root(), 0, out)) {
    std::fprintf(stderr, "a child's parent link is wrong\n");
    std::abort();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gpulint::AdmittedText admitted =
      gpulint::admit_text("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
  if (!admitted.error.empty()) return -1;
  const std::string_view text = admitted.bytes;
  const gpulint::FlatTree whole(tree_sitter_python(), text, {});
  const gpulint::FlatTree parts(tree_sitter_python(), text, gpulint::python::text_parts(text, 1));
  const std::vector<Entry> expected = walk_of(whole), walked = walk_of(parts);
  if (expected.empty() || walked.empty()) return 0;  // the parser gave up
  if (expected.front().has_error) {
    if (!walked.front().has_error) {
      std::fprintf(stderr, "the parts lost the whole parse's syntax error\n");
      std::abort();
    }
  } else if (walked != expected) {
    size_t i = 0;
    while (i < walked.size() && i < expected.size() && walked[i] == expected[i]) ++i;
    std::fprintf(stderr, "the parts differ from the whole parse at node %zu\n", i);
    std::abort();
  }
  return 0;
}

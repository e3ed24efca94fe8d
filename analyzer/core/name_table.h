#pragma once

// Sets and maps keyed by names that can be looked up with a std::string_view, so that asking
// whether a slice of the source is a known name does not copy it into a std::string first.

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace gpulint {

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
};

using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;
template <class Value>
using NameMap = std::unordered_map<std::string, Value, NameHash, std::equal_to<>>;

}  // namespace gpulint

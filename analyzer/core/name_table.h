#pragma once

// Sets and maps keyed by names that can be looked up with a std::string_view, so that asking
// whether a slice of the source is a known name does not copy it into a std::string first.
// Most of them stay empty for most files, and a lookup in an empty table still hashes the
// key, so lookups in an empty table return at once.

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

template <class Table>
class NameTable : public Table {
 public:
  using Table::Table;

  template <class Key>
  size_t count(const Key& key) const {
    return this->empty() ? 0 : Table::count(key);
  }
  template <class Key>
  typename Table::iterator find(const Key& key) {
    return this->empty() ? this->end() : Table::find(key);
  }
  template <class Key>
  typename Table::const_iterator find(const Key& key) const {
    return this->empty() ? this->end() : Table::find(key);
  }

  // A name given as a view, inserted when it is new: no key string is built (and thrown away
  // again, as emplace does) for a name the set holds already.
  void add(std::string_view key) {
    if (count(key) == 0) this->emplace(key);
  }
  // erase(key) wants a std::string until C++23.
  void remove(std::string_view key) {
    if (auto it = find(key); it != this->end()) this->erase(it);
  }
};

using NameSet = NameTable<std::unordered_set<std::string, NameHash, std::equal_to<>>>;
template <class Value>
using NameMap = NameTable<std::unordered_map<std::string, Value, NameHash, std::equal_to<>>>;

}  // namespace gpulint

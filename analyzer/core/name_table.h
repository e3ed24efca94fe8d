#pragma once

// Sets and maps keyed by names that can be looked up with a std::string_view, so that asking
// whether a slice of the source is a known name does not copy it into a std::string first.
// Most of them stay empty for most files, and a lookup in an empty table still hashes the
// key, so lookups in an empty table return at once.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace gpulint {

// Names are short (`model`, `self.optimizer`): read as at most two overlapping words, as wyhash
// reads short keys, and mixed by one multiplication, they hash in a few cycles where
// std::hash's byte loop took about two fifths of the time of the Builder's lookups (perf).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const {
    const char* p = name.data();
    size_t n = name.size();
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n > 16; p += 16, n -= 16) h = mix(word(p) ^ h, word(p + 8) ^ 0xbf58476d1ce4e5b9ull);
    uint64_t a = 0, b = 0;
    if (n >= 8) {
      a = word(p);
      b = word(p + n - 8);
    } else if (n >= 4) {
      a = half(p);
      b = half(p + n - 4);
    } else if (n > 0) {
      a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
          (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
          static_cast<unsigned char>(p[n - 1]);
    }
    return mix(a ^ h, b ^ 0x94d049bb133111ebull);
  }

 private:
  static uint64_t word(const char* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  static uint64_t half(const char* p) {
    uint32_t w;
    std::memcpy(&w, p, sizeof w);
    return w;
  }
  static uint64_t mix(uint64_t a, uint64_t b) {
    const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
  }
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

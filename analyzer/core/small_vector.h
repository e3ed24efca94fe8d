#pragma once

// A vector that holds its first N elements in itself, for the short lists the front end builds
// and drops once per call (a call's arguments): most calls have a few, and a heap allocation
// each, with its free, cost more than the rest of reading them.

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpulint {

template <class T, size_t N>
class SmallVector {
  // The inline slots past size() hold default values, never destroyed on their own.
  static_assert(std::is_trivially_destructible_v<T> && std::is_default_constructible_v<T>);

 public:
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ < N) return inline_[size_++] = T{std::forward<A>(a)...};
    if (size_ == N) heap_.assign(inline_, inline_ + N);  // spilled: the heap holds them all
    ++size_;
    return heap_.emplace_back(std::forward<A>(a)...);
  }
  void push_back(const T& value) { emplace_back(value); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return size_ <= N ? inline_ : heap_.data(); }
  const T* end() const { return begin() + size_; }
  const T& front() const { return *begin(); }
  const T& operator[](size_t i) const { return begin()[i]; }

 private:
  T inline_[N]{};
  std::vector<T> heap_;
  size_t size_ = 0;
};

}  // namespace gpulint

// A vector that keeps up to N elements inline (no heap allocation) and spills to the heap
// beyond. Graph nodes hold their inputs in one (ir::Node::inputs, N = 3): building a node then
// allocates nothing for its inputs, and a 100-op chain built and freed per call (bench W6) saves
// a malloc/free pair per node. The interface is the part of std::vector the code base uses, with
// conversions from and to std::vector for the places that pass inputs around as vectors.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace cgrad::core {

template <class T, std::size_t N>
class SmallVec {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  SmallVec() noexcept = default;
  SmallVec(std::initializer_list<T> items) { append_copies(items.begin(), items.end()); }
  SmallVec(const std::vector<T>& v) { append_copies(v.begin(), v.end()); }  // NOLINT: implicit by design
  SmallVec(std::vector<T>&& v) {                                            // NOLINT: implicit by design
    reserve(v.size());
    for (T& x : v) push_back(std::move(x));
    v.clear();
  }
  SmallVec(const SmallVec& o) { append_copies(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept { take(std::move(o)); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) {
      clear();
      append_copies(o.begin(), o.end());
    }
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      clear();
      release();
      take(std::move(o));
    }
    return *this;
  }
  SmallVec& operator=(std::initializer_list<T> items) {
    clear();
    append_copies(items.begin(), items.end());
    return *this;
  }
  ~SmallVec() {
    clear();
    release();
  }

  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT: implicit by design

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  size_type size() const noexcept { return size_; }
  size_type capacity() const noexcept { return cap_; }
  bool empty() const noexcept { return size_ == 0; }
  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  T& operator[](size_type i) noexcept { return data_[i]; }
  const T& operator[](size_type i) const noexcept { return data_[i]; }
  T& front() noexcept { return data_[0]; }
  const T& front() const noexcept { return data_[0]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  void reserve(size_type n) {
    if (n <= cap_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    for (size_type i = 0; i < size_; ++i) {
      ::new (static_cast<void*>(fresh + i)) T(std::move(data_[i]));
      data_[i].~T();
    }
    release();
    data_ = fresh;
    cap_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }
  template <class... A>
  T& emplace_back(A&&... args) {
    if (size_ == cap_) {
      // `args` may refer to an element of this vector: build the new element first
      T tmp(std::forward<A>(args)...);
      reserve(cap_ * 2);
      return *::new (static_cast<void*>(data_ + size_++)) T(std::move(tmp));
    }
    return *::new (static_cast<void*>(data_ + size_++)) T(std::forward<A>(args)...);
  }
  void pop_back() noexcept { data_[--size_].~T(); }
  void clear() noexcept {
    while (size_) pop_back();
  }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  T* inline_data() noexcept { return std::launder(reinterpret_cast<T*>(buf_)); }
  bool on_heap() const noexcept { return data_ != reinterpret_cast<const T*>(buf_); }
  // Frees heap storage (elements already destroyed) and returns to the inline buffer.
  void release() noexcept {
    if (on_heap()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = inline_data();
    cap_ = N;
  }
  template <class It>
  void append_copies(It first, It last) {
    reserve(size_ + static_cast<size_type>(std::distance(first, last)));
    for (; first != last; ++first) ::new (static_cast<void*>(data_ + size_++)) T(*first);
  }
  // Takes o's elements (this is empty, on its inline buffer); o is left empty.
  void take(SmallVec&& o) noexcept {
    if (o.on_heap()) {
      data_ = o.data_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.data_ = o.inline_data();
      o.size_ = 0;
      o.cap_ = N;
      return;
    }
    for (size_type i = 0; i < o.size_; ++i) ::new (static_cast<void*>(data_ + i)) T(std::move(o.data_[i]));
    size_ = o.size_;
    o.clear();
  }

  alignas(T) unsigned char buf_[N * sizeof(T)];
  T* data_ = inline_data();
  uint32_t size_ = 0;
  uint32_t cap_ = N;
};

}  // namespace cgrad::core

// Scratch arrays from the runtime's host pool (allocate_host), for host routines that need
// temporary memory per call (the interpreter's sorts, the fft's lines): a repeated call reuses
// pages the pool already faulted in instead of faulting fresh ones, and the elements are not
// initialized (every element is written before it is read). T is trivially copyable.
#pragma once

#include "ir/node.h"
#include "runtime/backend.h"

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace cgrad::runtime {

template <class T>
class HostScratch {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  HostScratch() = default;
  explicit HostScratch(std::size_t n)
      : storage_(n != 0 ? runtime::allocate_host(n * sizeof(T)) : nullptr),
        data_(n != 0 ? static_cast<T*>(storage_->data) : nullptr),
        size_(n) {}
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* data() { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  void swap(HostScratch& o) noexcept {
    std::swap(storage_, o.storage_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
  }

 private:
  std::shared_ptr<ir::Storage> storage_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cgrad::runtime

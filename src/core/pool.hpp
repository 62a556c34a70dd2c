// Pooled allocation for objects built and freed in bulk on the host hot path (graph nodes and
// tensor handles: a 100-op chain builds 100 of each and frees them together). Each thread keeps
// a free list of fixed-size blocks per size; `PoolAllocator<T>` hands blocks of its size to
// std::allocate_shared, so a node and its control block cost a pointer pop instead of a malloc.
// Blocks freed on another thread join that thread's list. A list keeps at most kMaxFree blocks
// (the rest go back to the heap) and is returned to the heap when its thread ends. Sanitizer
// builds allocate directly, so ASan still sees every use after free and TSan every reuse.
#pragma once

#include <cstddef>
#include <new>

namespace cgrad::core {

namespace pool_detail {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kPooled = false;
#else
inline constexpr bool kPooled = true;
#endif
#else
inline constexpr bool kPooled = true;
#endif

inline constexpr std::size_t kMaxFree = 1 << 14;

struct FreeBlock {
  FreeBlock* next;
};

// One free list per block size and thread. `gone` (trivially destructible, so readable while
// other thread-local objects are destroyed) sends frees after the list's own destruction to
// the heap.
template <std::size_t Size>
struct FreeList {
  FreeBlock* head = nullptr;
  std::size_t count = 0;
  static bool& gone() {
    thread_local bool g = false;
    return g;
  }
  ~FreeList() {
    gone() = true;
    while (head) {
      FreeBlock* n = head->next;
      ::operator delete(head);
      head = n;
    }
  }
  static FreeList& local() {
    thread_local FreeList l;
    return l;
  }
};

}  // namespace pool_detail

template <class T>
struct PoolAllocator {
  using value_type = T;
  static constexpr std::size_t kSize = (sizeof(T) + 15) / 16 * 16;

  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                  "pooled blocks have operator new's alignment");
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    // every single block is kSize bytes: a block freed on another thread may serve any type
    // of this size class there
    if (!pool_detail::kPooled || pool_detail::FreeList<kSize>::gone())
      return static_cast<T*>(::operator new(kSize));
    auto& l = pool_detail::FreeList<kSize>::local();
    if (!l.head) return static_cast<T*>(::operator new(kSize));
    pool_detail::FreeBlock* b = l.head;
    l.head = b->next;
    --l.count;
    return reinterpret_cast<T*>(b);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (!pool_detail::kPooled || n != 1 || pool_detail::FreeList<kSize>::gone()) {
      ::operator delete(p);
      return;
    }
    auto& l = pool_detail::FreeList<kSize>::local();
    if (l.count >= pool_detail::kMaxFree) {
      ::operator delete(p);
      return;
    }
    auto* b = reinterpret_cast<pool_detail::FreeBlock*>(p);
    b->next = l.head;
    l.head = b;
    ++l.count;
  }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace cgrad::core

// A small open-addressing hash table for CSE's lookups (node hash -> position). Only looked
// up, never iterated, so results never depend on its layout. Plain arrays and linear
// probing: a million nodes stay fast even in unoptimized builds, where std::unordered_map's
// layers of calls dominate.
#pragma once

#include <cstdint>
#include <vector>

namespace cgrad::passes {

/// Map from nonzero 64-bit keys to 32-bit values.
class FlatTable {
 public:
  explicit FlatTable(std::size_t expected) {
    std::size_t cap = 16;
    while (cap < expected * 2) cap *= 2;
    keys_.assign(cap, 0);
    vals_.assign(cap, 0);
  }

  /// The value slot of `key` (nonzero), inserting `fresh_value` when absent; `inserted` says which.
  uint32_t& find_or_insert(uint64_t key, uint32_t fresh_value, bool& inserted) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    std::size_t i = slot_of(key);
    inserted = keys_[i] == 0;
    if (inserted) {
      keys_[i] = key;
      vals_[i] = fresh_value;
      ++size_;
    }
    return vals_[i];
  }

 private:
  std::size_t slot_of(uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> 20) & mask;
    while (keys_[i] != 0 && keys_[i] != key) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<uint32_t> vals = std::move(vals_);
    keys_.assign(keys.size() * 2, 0);
    vals_.assign(keys.size() * 2, 0);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0) {
        std::size_t j = slot_of(keys[i]);
        keys_[j] = keys[i];
        vals_[j] = vals[i];
      }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  std::size_t size_ = 0;
};

}  // namespace cgrad::passes

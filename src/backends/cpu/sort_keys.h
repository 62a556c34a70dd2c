// Sorting a row's order keys alone (Sort's values), its values themselves (Sort's rows of 32- and
// 64-bit numbers), or distinct (key, position) words (Argsort's), interp_sort.cpp: a vectorized quicksort
// for AVX-512F (sort_keys_avx512.cpp), where the CPU has it; elsewhere callers keep their radix
// and merge sorts. Sorted keys are sorted keys: any algorithm gives the same array.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cgrad::backends::cpu {

/// Whether sort_keys runs here: the CPU has AVX-512F (and set_sort_keys_allowed(false) is not
/// in force). interp_sort.cpp also runs its vectorized row loops only where this holds.
bool have_sort_keys();

/// Tests only: false makes have_sort_keys() false in this process, so the sorts that CPUs without
/// AVX-512F run (the radix and merge sorts, the baseline row loops) are tested on CPUs with it;
/// true restores the CPU's answer. Set it while no sort runs.
void set_sort_keys_allowed(bool allowed);

/// Sorts key[0, n) ascending, in place. Call only where have_sort_keys().
void sort_keys(uint32_t* key, std::size_t n);
void sort_keys(uint64_t* key, std::size_t n);

/// Sorts the signed integers x[0, n) ascending, in place. Call only where have_sort_keys().
void sort_keys(int32_t* x, std::size_t n);
void sort_keys(int64_t* x, std::size_t n);

/// Sorts the floats x[0, n) ascending by value, in place; x holds no NaN. Zeros compare equal, and
/// where x holds both -0 and +0 the sorted zeros' signs are any mix (the count of each need not be
/// kept): callers that keep the bits write the zeros again. Call only where have_sort_keys().
void sort_keys(float* x, std::size_t n);
void sort_keys(double* x, std::size_t n);

#if defined(__x86_64__)
/// The builds with -mavx512f (sort_keys_avx512.cpp).
void sort_keys32_avx512(uint32_t* key, std::size_t n);
void sort_keys64_avx512(uint64_t* key, std::size_t n);
void sort_ints32_avx512(int32_t* x, std::size_t n);
void sort_ints64_avx512(int64_t* x, std::size_t n);
void sort_floats32_avx512(float* x, std::size_t n);
void sort_floats64_avx512(double* x, std::size_t n);
#endif

}  // namespace cgrad::backends::cpu

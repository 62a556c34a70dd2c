// The sorting networks of short rows (sort_network.inc), several rows at once: a build for the
// baseline instruction set (sort_network.cpp) and one for AVX-512F (sort_network_avx512.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cgrad::backends::cpu {

/// Rows sorted at once by one call: the lanes of a 512-bit vector of 64-bit words.
constexpr std::size_t kNetworkLanes = 8;

/// Sorts kNetworkLanes rows of p words at once, each ascending: c[e * kNetworkLanes + r] is word e
/// of row r (p a power of two up to 32). The best build the CPU runs.
void bitonic_lanes(uint64_t* c, std::size_t p);

/// The build for the baseline instruction set (tests compare the two).
void bitonic_lanes_baseline(uint64_t* c, std::size_t p);
#if defined(__x86_64__)
/// The build with -mavx512f: call it only where the CPU has AVX-512F.
void bitonic_lanes_avx512(uint64_t* c, std::size_t p);
#endif

}  // namespace cgrad::backends::cpu

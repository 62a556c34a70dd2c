/// cgrad::et: compile-time expression templates over host (and, under nvcc, device) vectors.
///
/// `et::Vector<T> v = a * b + 2.0 * exp(c);` builds the expression tree at compile time and runs
/// it as one fused loop (one CUDA kernel for et::cuda::Vector). Reductions (`et::sum`, `et::dot`,
/// `et::max`, `et::min`, `et::norm_inf`) inside an expression run first. See docs/et.md.
#pragma once

#include <cgrad/et/cuda.hpp>
#include <cgrad/et/expr.hpp>
#include <cgrad/et/ops.hpp>
#include <cgrad/et/reduce.hpp>
#include <cgrad/et/vector.hpp>

/// cgrad: a lazy tensor engine. Include this header for the whole C++ API.
#pragma once

#include <cgrad/compile.hpp>
#include <cgrad/core.hpp>
#include <cgrad/extend.hpp>
#include <cgrad/fft.hpp>
#include <cgrad/interop.hpp>
#include <cgrad/linalg.hpp>
#include <cgrad/manipulation.hpp>  // manip group (issue #15)
#include <cgrad/tensor.hpp>

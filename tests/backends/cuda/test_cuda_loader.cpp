// The CUDA libraries are opened at run time: on a machine without a driver or GPU, cgrad works
// on the CPU, cuda_available() is false, and every use of Device::cuda() raises DeviceError when
// the op is built (or at to()), leaving existing tensors intact. These run on every machine.
#include "backends/cuda/loader.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <functional>
#include <string>
#include <vector>

namespace {

using namespace cgrad;
namespace cu = cgrad::backends::cuda;

TEST(CudaLoader, AvailabilityMatchesTheDriverTable) {
  const bool avail = cuda_available();
  EXPECT_EQ(avail, cu::driver() != nullptr);
  if (avail) {
    EXPECT_GT(cu::device_count(), 0);
    EXPECT_TRUE(cu::driver_status().empty());
  } else {
    EXPECT_EQ(cu::device_count(), 0);
    EXPECT_FALSE(cu::driver_status().empty()) << "an unavailable driver must say why";
  }
  EXPECT_EQ(cuda_available(), avail) << "the answer is computed once and stable";
}

TEST(CudaLoader, ToolkitLibrariesReportWhyWhenMissing) {
  if (cu::nvrtc()) {
    EXPECT_TRUE(cu::nvrtc_status().empty());
    EXPECT_GE(cu::nvrtc()->major, 11) << "NVRTC " << cu::nvrtc()->major << "." << cu::nvrtc()->minor;
  } else {
    EXPECT_NE(cu::nvrtc_status().find("NVRTC"), std::string::npos) << cu::nvrtc_status();
  }
  if (cu::cublas())
    EXPECT_TRUE(cu::cublas_status().empty());
  else
    EXPECT_NE(cu::cublas_status().find("cuBLAS"), std::string::npos) << cu::cublas_status();
}

TEST(CudaLoader, CheckMapsDriverErrors) {
  EXPECT_NO_THROW(cu::check(cu::kCudaSuccess, "nothing"));
  try {
    cu::check(cu::kCudaErrorOutOfMemory, "cuMemAlloc");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
    EXPECT_NE(std::string(e.what()).find("cuMemAlloc"), std::string::npos);
  }
  try {
    cu::check(999, "cuLaunchKernel");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::DeviceError);
  }
}

// Every way to put work on a CUDA device, each of which must fail cleanly here.
TEST(CudaLoader, EveryCudaUseRaisesDeviceErrorWithoutAGpu) {
  if (cuda_available()) GTEST_SKIP() << "CUDA is available: the DeviceError paths need a machine without it";
  Tensor a = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor lazy = a * 2.0f + 1.0f;  // pending work on the CPU
  const std::vector<std::pair<std::string, std::function<void()>>> uses = {
      {"tensor<float>", [] { tensor(std::vector<float>{1}, {1}, Device::cuda()); }},
      {"tensor<double>", [] { tensor(std::vector<double>{1}, {1}, Device::cuda()); }},
      {"tensor<int32_t>", [] { tensor(std::vector<int32_t>{1}, {1}, Device::cuda()); }},
      {"tensor<int64_t>", [] { tensor(std::vector<int64_t>{1}, {1}, Device::cuda(2)); }},
      {"zeros", [] { zeros({2}, f32, Device::cuda()); }},
      {"ones", [] { ones({2}, f64, Device::cuda()); }},
      {"full", [] { full({2}, 3.0, i32, Device::cuda()); }},
      {"arange", [] { arange(4, i64, Device::cuda()); }},
      {"rand", [] { rand({2}, f32, Device::cuda()); }},
      {"randn", [] { randn({2}, f64, Device::cuda()); }},
      {"to(cuda) of a leaf", [&] { a.to(Device::cuda()); }},
      {"to(cuda) of a pending graph", [&] { lazy.to(Device::cuda()); }},
  };
  for (const auto& [what, use] : uses) {
    SCOPED_TRACE(what);
    try {
      use();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::DeviceError) << e.what();
      EXPECT_NE(std::string(e.what()).find("cuda:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(cu::driver_status()), std::string::npos)
          << "says why: " << e.what();
    }
  }
  EXPECT_FALSE(lazy.is_evaluated()) << "a failed to() computes nothing";
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(lazy.to_vector<float>(), (std::vector<float>{3, 5, 7}));
  EXPECT_EQ(a.to(Device::cpu()).to_vector<float>(), (std::vector<float>{1, 2, 3}))
      << "to(cpu) on the CPU is a no-op";
}

}  // namespace

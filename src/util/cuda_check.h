// Every CUDA call is checked: a failure throws with the call, file:line and the error's name.
#pragma once
#if defined(GNF_HAVE_CUDA)
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gnf {

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                           cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace gnf

#define GNF_CUDA_CHECK(call)                                                    \
  do {                                                                          \
    cudaError_t gnf_err_ = (call);                                              \
    if (gnf_err_ != cudaSuccess) ::gnf::cuda_fail(gnf_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: launch errors now, execution errors at the next synchronisation.
#define GNF_CUDA_CHECK_LAUNCH() GNF_CUDA_CHECK(cudaGetLastError())

#endif

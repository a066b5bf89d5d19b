// The CPU-only build: the GPU domains exist in the interface but cannot be allocated.
#if !defined(GNF_HAVE_CUDA)
#include "mem/cuda_alloc.h"
#include "util/error.h"

namespace gnf::mem {

namespace {
[[noreturn]] void no_cuda() { throw UserError("this gnf was built without CUDA: GPU memory domains are unavailable"); }
}  // namespace

uint8_t* alloc_host_pinned(size_t) { no_cuda(); }
void free_host_pinned(uint8_t*) { no_cuda(); }
uint8_t* alloc_device(size_t) { no_cuda(); }
void free_device(uint8_t*) { no_cuda(); }
void zero_fill(uint8_t*, size_t) { no_cuda(); }
void cuda_copy(void*, const void*, size_t) { no_cuda(); }
bool cuda_device_available() { return false; }
std::optional<CudaInfo> cuda_info() { return std::nullopt; }

}  // namespace gnf::mem
#endif

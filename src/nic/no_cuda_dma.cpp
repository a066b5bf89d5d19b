#if !defined(GNF_HAVE_CUDA)
#include "nic/cuda_dma.h"
#include "util/error.h"

namespace gnf::nic {

std::unique_ptr<DmaEngine> make_cuda_dma() {
  throw UserError("this gnf was built without CUDA: the GPU DMA engine is unavailable");
}
std::unique_ptr<DmaEngine> make_sm_dma() {
  throw UserError("this gnf was built without CUDA: the GPU DMA engine is unavailable");
}

}  // namespace gnf::nic
#endif

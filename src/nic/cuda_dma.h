// DMA engines for rings and slots in GPU memory (or pinned host memory). Two of them:
//
// make_sm_dma() (the default, sm_dma.cu): one persistent GPU thread block is the NIC's DMA
// engine. The NIC model posts jobs (packet writes, descriptor write-backs, reads) into pinned
// memory; the block copies the bytes across PCIe into GPU memory (or back) and writes the
// descriptors after the packets. No CUDA call per packet or per batch: posting is a release
// store, completion an acquire load. It costs the GPU path one SM per engine (two per port), which
// a real NIC would not take, and crosses PCIe with the same bytes a NIC would.
//
// make_cuda_dma() (cuda_dma.cu): the GPU's copy engines move the bytes, as a NIC's DMA engine
// would over PCIe peer-to-peer. Measured on the H100 machine, cudaMemcpyBatchAsync costs about
// 1 us of CPU per copy to issue (256 copies of 64 B: 267 us), so packets through it are bounded
// by the API near 1 Mpps per NIC thread: kept for comparison.
//
// Writes are staged in pinned memory and issued at flush() as two cudaMemcpyBatchAsync calls on
// one stream: every packet, then every descriptor write-back and head write-back. Copies within a
// batch have no order, batches in one stream do, so no descriptor ever announces a packet whose
// bytes are not yet in place (the ordering a real NIC gets from PCIe posted writes). flush() does
// not wait: a NIC keeps writes in flight, and so does this engine, up to the staging it has.
// Built only with CUDA; make_cuda_dma() throws without it.
#pragma once
#include <memory>

#include "nic/dma.h"

namespace gnf::nic {

std::unique_ptr<DmaEngine> make_cuda_dma();
std::unique_ptr<DmaEngine> make_sm_dma();

}  // namespace gnf::nic

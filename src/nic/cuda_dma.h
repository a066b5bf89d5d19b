// The DMA engine for rings and slots in GPU memory (or pinned host memory): the GPU's copy
// engines move the bytes, as a NIC's DMA engine would over PCIe peer-to-peer.
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

}  // namespace gnf::nic

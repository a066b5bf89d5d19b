#include "driver/gpu_nf_runner.h"

#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "util/cuda_check.h"
#include "util/error.h"

namespace gnf::driver {

namespace {

__global__ void run_chain_kernel(nf::NfChainView chain, nf::PacketRef* refs, uint32_t count,
                                 unsigned long long* totals) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  nf::NfCounters local[nf::kMaxChainLength] = {};
  nf::PacketBatch one{&refs[i], 1};
  nf::run_chain(chain, one, local);
  for (uint32_t e = 0; e < chain.count; ++e)
    for (int k = 0; k < nf::NfCounters::kMax; ++k)
      if (local[e].value[k]) atomicAdd(&totals[e * nf::NfCounters::kMax + k], local[e].value[k]);
}

constexpr uint32_t kThreads = 128;

}  // namespace

struct GpuNfRunner::Impl {
  mem::Block pinned;  // refs, then the counters the kernel adds into
  nf::PacketRef* refs = nullptr;
  unsigned long long* totals = nullptr;
  cudaStream_t stream = nullptr;
};

GpuNfRunner::GpuNfRunner(uint32_t max_batch) : impl_(std::make_unique<Impl>()) {
  if (!mem::cuda_device_available()) throw UserError("path 'staged' needs a CUDA GPU, and none is usable here");
  size_t refs_bytes = (size_t(max_batch) * sizeof(nf::PacketRef) + 127) / 128 * 128;
  size_t totals_bytes = nf::kMaxChainLength * nf::NfCounters::kMax * sizeof(unsigned long long);
  impl_->pinned = mem::Block(mem::Domain::HostPinned, refs_bytes + totals_bytes);
  impl_->refs = reinterpret_cast<nf::PacketRef*>(impl_->pinned.data());
  impl_->totals = reinterpret_cast<unsigned long long*>(impl_->pinned.data() + refs_bytes);
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
}

GpuNfRunner::~GpuNfRunner() {
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

nf::PacketRef* GpuNfRunner::refs() { return impl_->refs; }

void GpuNfRunner::run(const nf::NfChainView& chain, uint32_t count, nf::NfCounters* counters) {
  if (count == 0) return;
  Impl& m = *impl_;
  const size_t n_totals = nf::kMaxChainLength * nf::NfCounters::kMax;
  for (size_t i = 0; i < n_totals; ++i) m.totals[i] = 0;
  run_chain_kernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, m.stream>>>(chain, m.refs, count, m.totals);
  GNF_CUDA_CHECK_LAUNCH();
  // The kernel's writes to mapped host memory (verdicts, rewritten headers, counters) are visible
  // to this thread once the stream is synchronised.
  GNF_CUDA_CHECK(cudaStreamSynchronize(m.stream));
  for (uint32_t e = 0; e < chain.count; ++e)
    for (int k = 0; k < nf::NfCounters::kMax; ++k) counters[e].value[k] += m.totals[e * nf::NfCounters::kMax + k];
}

}  // namespace gnf::driver

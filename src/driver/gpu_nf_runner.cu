#include "driver/gpu_nf_runner.h"

#include <new>
#include <vector>

#include "mem/block.h"
#include "mem/cuda_alloc.h"
#include "nf/chain_device.cuh"
#include "sync/mailbox.h"
#include "util/cuda_check.h"
#include "util/cuda_wait.h"
#include "util/error.h"

namespace gnf::driver {

namespace {

constexpr uint32_t kThreads = 128;  // per block of the per-burst kernels
// Packets per block of the per-burst kernel: a thread each, or with a tiled NF in the chain a warp
// each (nf/tile.cuh), whose blocks are then many and short. Only in copy mode: zero-copy, every
// byte a lane reads crosses PCIe, and a tile's lanes read the bytes their pieces overlap twice.
constexpr uint32_t kPacketsPerBlock = kThreads, kTiledPacketsPerBlock = kThreads / 32;
constexpr uint32_t kCounterWords = nf::kMaxChainLength * nf::NfCounters::kMax;
constexpr size_t kLine = 128;

// Copy mode: where packet i's bytes are on the GPU, at the offset they have in their slot.
__device__ __host__ inline uint8_t* device_bytes(uint8_t* entry_packets, uint32_t i, uint32_t slot_bytes,
                                                 const nf::PacketRef& ref) {
  return entry_packets + size_t(i) * slot_bytes + ref.headroom;
}

// Kernel per burst. `device_packets` null: the bytes are read in place (zero-copy); otherwise
// packet i was copied into device slot i (device_bytes), and the block's chain runs on refs to
// those copies, which it maps back to the slots after (an NF that moved the frame's start within
// the slot moved it in the slot's ref too). Each block writes its row of `partials` (no atomics on
// host memory: the host adds the rows up).
__global__ void burst_kernel(nf::NfChainView chain, nf::PacketRef* refs, uint32_t count, uint32_t per_block,
                             uint8_t* device_packets, uint32_t slot_bytes, unsigned long long* partials) {
  __shared__ unsigned long long totals[kCounterWords];
  // Raw bytes: a __shared__ array of a type with default member initialisers cannot be declared.
  __shared__ alignas(nf::PacketRef) unsigned char on_gpu_bytes[kThreads * sizeof(nf::PacketRef)];
  auto* on_gpu = reinterpret_cast<nf::PacketRef*>(on_gpu_bytes);
  for (uint32_t i = threadIdx.x; i < kCounterWords; i += blockDim.x) totals[i] = 0;
  const uint32_t first = blockIdx.x * per_block, n = min(count - first, per_block), i = first + threadIdx.x;
  uint8_t* bytes = nullptr;
  if (threadIdx.x < n) {
    bytes = device_packets ? device_bytes(device_packets, i, slot_bytes, refs[i]) : refs[i].data;
    on_gpu[threadIdx.x] = refs[i];
    on_gpu[threadIdx.x].data = bytes;
  }
  __syncthreads();
  nf::run_chain_on_block(chain, {on_gpu, 0, 1, n}, totals);
  __syncthreads();
  if (threadIdx.x < n) {
    uint8_t* const host = refs[i].data;
    refs[i] = on_gpu[threadIdx.x];
    refs[i].data = host + (on_gpu[threadIdx.x].data - bytes);
  }
  for (uint32_t k = threadIdx.x; k < kCounterWords; k += blockDim.x) partials[blockIdx.x * kCounterWords + k] = totals[k];
}

// The persistent kernel's work queue: burst k (from 0) is posted as request k + 1 of the mailbox and
// completed as k + 1; its references are entry k % depth of `refs`, its packet count entry
// k % depth of `counts` (pinned memory, written before the post).
using WorkQueue = sync::Mailbox<>;

__global__ void persistent_kernel(nf::NfChainView chain, WorkQueue* queue, const uint32_t* counts, nf::PacketRef* refs,
                                  uint32_t max_batch, unsigned long long* partials, uint32_t depth, uint32_t first_burst) {
  __shared__ unsigned long long totals[kCounterWords];
  __shared__ uint32_t count, stop;
  for (uint32_t k = first_burst;; ++k) {
    if (threadIdx.x == 0) {
      for (;;) {
        // Acquire: the burst's references and count are visible once its post is seen.
        if (queue->has_posted(k + 1)) {
          count = counts[k % depth];
          stop = 0;
          break;
        }
        if (queue->stop_requested()) {
          stop = 1;
          break;
        }
      }
    }
    for (uint32_t i = threadIdx.x; i < kCounterWords; i += blockDim.x) totals[i] = 0;
    __syncthreads();
    if (stop) return;
    nf::PacketRef* burst = refs + size_t(k % depth) * max_batch;
    nf::run_chain_on_block(chain, {burst, 0, 1, count}, totals);
    __syncthreads();
    for (uint32_t c = threadIdx.x; c < kCounterWords; c += blockDim.x)
      partials[size_t(k % depth) * kCounterWords + c] = totals[c];
    __syncthreads();
    if (threadIdx.x == 0) queue->complete_after_barrier(k + 1);
  }
}

}  // namespace

struct GpuNfRunner::Impl {
  StagedMode mode;
  uint32_t max_batch, depth, slot_bytes, per_block, blocks_per_burst;
  // Blocks a burst of `count` packets takes, one row of counter partials each.
  uint32_t blocks_for(uint32_t count) const { return (count + per_block - 1) / per_block; }
  nf::NfChainView chain;
  mem::Block pinned;          // refs per entry, counter partials per entry, the work queue, counts per entry
  mem::Block device_packets;  // Copy mode: each entry's packets on the GPU
  nf::PacketRef* refs = nullptr;
  unsigned long long* partials = nullptr;
  WorkQueue* queue = nullptr;
  uint32_t* queued_counts = nullptr;
  cudaStream_t stream = nullptr;

  // Per entry, for the per-burst modes: an event after its last operation, and for Copy mode
  // whether the copy back has been issued (it needs the lengths the NFs left).
  std::vector<cudaEvent_t> events;
  std::vector<uint32_t> counts;
  std::vector<bool> copying_back;
  uint64_t submitted = 0, completed = 0;
  bool kernel_running = false;

  nf::PacketRef* entry_refs(uint64_t burst) const { return refs + size_t(burst % depth) * max_batch; }
  unsigned long long* entry_partials(uint64_t burst) const {
    return partials + size_t(burst % depth) * blocks_per_burst * kCounterWords;
  }
  uint8_t* entry_packets(uint64_t burst) const {
    return device_packets.data() + size_t(burst % depth) * max_batch * slot_bytes;
  }
  // Issues the copies between the slots and the entry's GPU buffer (to_device or back). The
  // arrays are kept between bursts so that the copy path does not allocate.
  void copy_packets(uint64_t burst, bool to_device);
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<size_t> sizes;
  bool gpu_done(uint64_t burst, bool wait);
};

void GpuNfRunner::Impl::copy_packets(uint64_t burst, bool to_device) {
  const nf::PacketRef* r = entry_refs(burst);
  dsts.clear();
  srcs.clear();
  sizes.clear();
  for (uint32_t i = 0; i < counts[burst % depth]; ++i) {
    // Back, only what leaves: dropped packets' bytes are not needed again.
    if (!to_device && r[i].verdict == nf::Verdict::Drop) continue;
    uint8_t* gpu = device_bytes(entry_packets(burst), i, slot_bytes, r[i]);
    dsts.push_back(to_device ? static_cast<void*>(gpu) : static_cast<void*>(r[i].data));
    srcs.push_back(to_device ? static_cast<const void*>(r[i].data) : static_cast<const void*>(gpu));
    sizes.push_back(r[i].len);
  }
  if (dsts.empty()) return;
  cudaMemcpyAttributes attrs{};
  attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t attrs_index = 0;
  GNF_CUDA_CHECK(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), dsts.size(), &attrs, &attrs_index, 1, stream));
}

bool GpuNfRunner::Impl::gpu_done(uint64_t burst, bool wait) {
  const uint32_t e = uint32_t(burst % depth);
  if (mode == StagedMode::Persistent) {
    // Acquire: the verdicts and rewritten packets are visible once the completion is seen.
    while (!queue->has_completed(uint32_t(burst + 1)))
      if (!wait) return false;
    return true;
  }
  for (;;) {
    cudaError_t status = wait ? cudaEventSynchronize(events[e]) : cudaEventQuery(events[e]);
    if (status == cudaErrorNotReady) return false;
    GNF_CUDA_CHECK(status);
    if (mode != StagedMode::Copy || copying_back[e]) return true;
    copy_packets(burst, false);
    GNF_CUDA_CHECK(cudaEventRecord(events[e], stream));
    copying_back[e] = true;
  }
}

GpuNfRunner::GpuNfRunner(StagedMode mode, uint32_t max_batch, uint32_t depth, uint32_t slot_bytes,
                         const nf::NfChainView& chain)
    : impl_(std::make_unique<Impl>()) {
  if (!mem::cuda_device_available()) throw UserError("path 'staged' needs a CUDA GPU, and none is usable here");
  Impl& m = *impl_;
  m.mode = mode;
  m.max_batch = max_batch;
  m.depth = depth;
  m.slot_bytes = slot_bytes;
  m.chain = chain;
  m.per_block = nf::has_tiled(chain) && mode == StagedMode::Copy ? kTiledPacketsPerBlock : kPacketsPerBlock;
  m.blocks_per_burst = mode == StagedMode::Persistent ? 1 : m.blocks_for(max_batch);
  const size_t refs_bytes = (size_t(depth) * max_batch * sizeof(nf::PacketRef) + kLine - 1) / kLine * kLine;
  const size_t partials_bytes = size_t(depth) * m.blocks_per_burst * kCounterWords * sizeof(unsigned long long);
  const size_t queue_bytes = (sizeof(WorkQueue) + kLine - 1) / kLine * kLine;
  m.pinned = mem::Block(mem::Domain::HostPinned, refs_bytes + partials_bytes + queue_bytes + depth * sizeof(uint32_t));
  m.refs = reinterpret_cast<nf::PacketRef*>(m.pinned.data());
  m.partials = reinterpret_cast<unsigned long long*>(m.pinned.data() + refs_bytes);
  m.queue = new (m.pinned.data() + refs_bytes + partials_bytes) WorkQueue{};
  m.queued_counts = reinterpret_cast<uint32_t*>(m.pinned.data() + refs_bytes + partials_bytes + queue_bytes);
  if (mode == StagedMode::Copy) m.device_packets = mem::Block(mem::Domain::Device, size_t(depth) * max_batch * slot_bytes);
  m.events.resize(depth);
  for (cudaEvent_t& e : m.events) GNF_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  m.counts.assign(depth, 0);
  m.copying_back.assign(depth, false);
  GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking));
}

GpuNfRunner::~GpuNfRunner() {
  Impl& m = *impl_;
  try {
    stop();
  } catch (...) {
  }
  if (m.stream) cudaStreamDestroy(m.stream);
  for (cudaEvent_t e : m.events) cudaEventDestroy(e);
}

void GpuNfRunner::stop() {
  Impl& m = *impl_;
  if (!m.kernel_running) return;
  m.queue->request_stop();
  m.kernel_running = false;
  wait_for_stop(m.stream, "the staged path's persistent kernel");
}

nf::PacketRef* GpuNfRunner::next_batch() {
  const Impl& m = *impl_;
  return m.submitted - m.completed < m.depth ? m.entry_refs(m.submitted) : nullptr;
}

void GpuNfRunner::submit(uint32_t count) {
  Impl& m = *impl_;
  const uint64_t burst = m.submitted;
  const uint32_t e = uint32_t(burst % m.depth);
  m.counts[e] = count;
  m.copying_back[e] = false;
  if (m.mode == StagedMode::Persistent) {
    if (!m.kernel_running) {
      // Launched on first use, so a runner that never runs holds no kernel that spins.
      // A thread per packet where the kernel's registers allow it (a chain with a cipher takes
      // ~170 per thread, so fewer than 1024 fit in a block); the kernel strides over the rest.
      cudaFuncAttributes attributes{};
      GNF_CUDA_CHECK(cudaFuncGetAttributes(&attributes, persistent_kernel));
      const uint32_t fitting = uint32_t(attributes.maxThreadsPerBlock) / 32 * 32;
      const uint32_t threads = std::min<uint32_t>(fitting, (m.max_batch + 31) / 32 * 32);
      persistent_kernel<<<1, threads, 0, m.stream>>>(m.chain, m.queue, m.queued_counts, m.refs, m.max_batch,
                                                     m.partials, m.depth, uint32_t(burst));
      GNF_CUDA_CHECK_LAUNCH();
      m.kernel_running = true;
    }
    m.queued_counts[e] = count;
    // Release: the references and the count are visible to the kernel's acquire of the post.
    m.queue->post(uint32_t(burst + 1));
  } else {
    uint8_t* device_packets = nullptr;
    if (m.mode == StagedMode::Copy) {
      m.copy_packets(burst, true);
      device_packets = m.entry_packets(burst);
    }
    const uint32_t blocks = m.blocks_for(count);
    burst_kernel<<<blocks, kThreads, 0, m.stream>>>(m.chain, m.entry_refs(burst), count, m.per_block, device_packets,
                                                    m.slot_bytes, m.entry_partials(burst));
    GNF_CUDA_CHECK_LAUNCH();
    GNF_CUDA_CHECK(cudaEventRecord(m.events[e], m.stream));
  }
  ++m.submitted;
}

GpuNfRunner::Done GpuNfRunner::take_done(bool wait, nf::NfCounters* counters) {
  Impl& m = *impl_;
  if (m.completed == m.submitted || !m.gpu_done(m.completed, wait)) return Done{nullptr, 0};
  const uint64_t burst = m.completed++;
  const uint32_t count = m.counts[burst % m.depth];
  const uint32_t rows = m.mode == StagedMode::Persistent ? 1 : m.blocks_for(count);
  const unsigned long long* partials = m.entry_partials(burst);
  for (uint32_t row = 0; row < rows; ++row)
    for (uint32_t e = 0; e < m.chain.count; ++e)
      for (int k = 0; k < nf::NfCounters::kMax; ++k)
        counters[e].value[k] += partials[row * kCounterWords + e * nf::NfCounters::kMax + k];
  return Done{m.entry_refs(burst), count};
}

uint32_t GpuNfRunner::in_flight() const { return uint32_t(impl_->submitted - impl_->completed); }

void GpuNfRunner::for_each_in_flight(void (*visit)(const nf::PacketRef&, void*), void* context) const {
  const Impl& m = *impl_;
  for (uint64_t b = m.completed; b < m.submitted; ++b)
    for (uint32_t i = 0; i < m.counts[b % m.depth]; ++i) visit(m.entry_refs(b)[i], context);
}

}  // namespace gnf::driver

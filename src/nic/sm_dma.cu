// The NIC's DMA engine for GPU memory, run by one GPU thread block (see cuda_dma.h for why).
//
// The NIC model (a CPU thread) and the engine's block share pinned host memory: a ring of jobs,
// each a list of operations with their data. A job is posted by a release store of `doorbell`;
// the block takes jobs strictly in order, does the operations and publishes `done` with a
// release store. Operations:
//   Write   copy bytes from the job's data into GPU memory (a packet into its slot);
//   Desc    a 16-byte write-back: bytes 0..11, then the status word (DD) with release;
//   Word    a 32-bit value with release (tx DD write-back, head write-back);
//   Read    copy bytes from GPU memory into the job's data (descriptor fetch, packet read).
// A job runs in three steps with a fence and a barrier between them: every Write, then every Desc
// and Word, then every Read. So no descriptor announces a packet whose bytes are not yet in place,
// and, jobs running in order, a read sees every write posted before it.
#include <cuda/atomic>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

#include "mem/cuda_alloc.h"
#include "nic/batched_read_dma.h"
#include "nic/cuda_dma.h"
#include "sync/ordering.h"
#include "util/clock.h"
#include "util/cuda_check.h"

namespace gnf::nic {

namespace {

enum class OpKind : uint32_t { Write, Desc, Word, Read };

struct Op {
  uint64_t gpu_addr;
  uint32_t data_offset;  // into the job's data; for Word, the value itself
  uint16_t len;
  uint16_t kind;
};
static_assert(sizeof(Op) == 16);

// The 32-bit word of an rx write-back that holds DD.
constexpr uint32_t kStatusWord = offsetof(ixgbe_adv_rx_desc, wb.upper.status_error) / 4;
static_assert(kStatusWord == 2, "82599 rx write-back: status_error is bytes 8..11, length follows");

constexpr uint32_t kJobs = 16;
constexpr uint32_t kOpsPerJob = 1024;
constexpr size_t kDataPerJob = 512 << 10;
constexpr size_t kLine = 128;

struct alignas(kLine) Control {
  uint32_t doorbell;  // jobs posted (host release, GPU acquire)
  uint32_t pad0[31];
  uint32_t done;      // jobs done (GPU release, host acquire)
  uint32_t pad1[31];
  uint32_t stop;
  uint32_t pad2[31];
  // Per job: its ops, and how many of each step, so the block skips (and does not fence) the
  // steps a job does not have.
  struct Counts {
    uint32_t ops, writes, ordered, reads;  // ordered: Desc and Word
  } counts[kJobs];
};

// Descriptors and write-backs live in GPU memory and are read by kernels on this GPU: device scope.
__device__ __forceinline__ void store_release_gpu(uint32_t* p, uint32_t v) {
  cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}

// Copies `len` bytes with 16-byte words, the tail byte by byte; `lane` of `lanes` threads share it.
// Loads bypass L1 (__ldcg): the same descriptors and slots are read again and again, rewritten by
// other kernels in between, and a stale L1 line must never be served.
__device__ void copy_bytes(uint8_t* dst, const uint8_t* src, uint32_t len, uint32_t lane, uint32_t lanes) {
  const uint32_t words = len / 16;
  for (uint32_t w = lane; w < words; w += lanes)
    reinterpret_cast<uint4*>(dst)[w] = __ldcg(reinterpret_cast<const uint4*>(src) + w);
  for (uint32_t b = words * 16 + lane; b < len; b += lanes) dst[b] = __ldcg(src + b);
}

__global__ void sm_dma_kernel(Control* control, const Op* ops, uint8_t* data, uint32_t first_job) {
  __shared__ Control::Counts counts;
  __shared__ uint32_t job, stop;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  for (uint32_t k = first_job;; ++k) {
    if (threadIdx.x == 0) {
      for (;;) {
        // Acquire pairs with the host's release of the doorbell: the job's ops and data are visible.
        if (int32_t(load_acquire_sys(&control->doorbell) - k) > 0) {
          job = k % kJobs;
          counts = control->counts[job];
          stop = 0;
          break;
        }
        if (load_acquire_sys(&control->stop)) {
          stop = 1;
          break;
        }
      }
    }
    __syncthreads();
    if (stop) return;
    // Private copies: thread 0 rewrites the shared ones for the next job.
    const Control::Counts my = counts;
    const Op* job_ops = ops + size_t(job) * kOpsPerJob;
    uint8_t* job_data = data + size_t(job) * kDataPerJob;
    if (my.writes) {
      // Packets first: a warp per Write. Then every thread's bytes are in GPU memory (device
      // scope: the drivers that read them run on this GPU) before any descriptor is written.
      for (uint32_t i = warp; i < my.ops; i += warps) {
        const Op op = job_ops[i];
        if (op.kind == uint16_t(OpKind::Write))
          copy_bytes(reinterpret_cast<uint8_t*>(op.gpu_addr), job_data + op.data_offset, op.len, lane, 32);
      }
      __threadfence();
      __syncthreads();
    }
    if (my.ordered) {
      for (uint32_t i = threadIdx.x; i < my.ops; i += blockDim.x) {
        const Op op = job_ops[i];
        if (op.kind == uint16_t(OpKind::Desc)) {
          auto* desc = reinterpret_cast<uint32_t*>(op.gpu_addr);
          const auto* wb = reinterpret_cast<const uint32_t*>(job_data + op.data_offset);
          // The status word (DD) last, released: the driver that acquires it sees the rest, the
          // length above all (word 3: a length read before it was written made frames "malformed").
          desc[0] = wb[0];
          desc[1] = wb[1];
          desc[3] = wb[3];
          store_release_gpu(&desc[kStatusWord], wb[kStatusWord]);
        } else if (op.kind == uint16_t(OpKind::Word)) {
          store_release_gpu(reinterpret_cast<uint32_t*>(op.gpu_addr), op.data_offset);
        }
      }
      __syncthreads();
    }
    if (my.reads) {
      // Reads last, into the job's data in pinned memory (a warp per Read), out to the host
      // (system scope) before the job is reported done.
      for (uint32_t i = warp; i < my.ops; i += warps) {
        const Op op = job_ops[i];
        if (op.kind == uint16_t(OpKind::Read))
          copy_bytes(job_data + op.data_offset, reinterpret_cast<const uint8_t*>(op.gpu_addr), op.len, lane, 32);
      }
      __threadfence_system();
      __syncthreads();
    }
    if (threadIdx.x == 0) store_release_sys(&control->done, k + 1);
    __syncthreads();  // nobody still reads this job's shared values when thread 0 takes the next
  }
}

class SmDma final : public BatchedReadDma {
 public:
  SmDma() {
    pinned_ = mem::alloc_host_pinned(sizeof(Control) + kJobs * kOpsPerJob * sizeof(Op) + kJobs * kDataPerJob);
    control_ = reinterpret_cast<Control*>(pinned_);
    std::memset(control_, 0, sizeof(Control));
    ops_ = reinterpret_cast<Op*>(pinned_ + sizeof(Control));
    data_ = pinned_ + sizeof(Control) + kJobs * kOpsPerJob * sizeof(Op);
    GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~SmDma() override {
    try {
      flush();
      stop();
    } catch (...) {
    }
    cudaStreamDestroy(stream_);
    mem::free_host_pinned(pinned_);
  }

  void write_packet(uint64_t dst, const uint8_t* src, uint32_t len) override {
    add(OpKind::Write, dst, src, len);
    counters_.packet_bytes_to_memory.add(len);
  }
  void write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) override {
    add(OpKind::Desc, desc_addr, &wb, sizeof(wb));
    counters_.desc_bytes_to_memory.add(16);
  }
  void write_tx_writeback(uint64_t desc_addr) override {
    add_word(desc_addr + offsetof(ixgbe_adv_tx_desc, wb.status), IXGBE_ADVTXD_STAT_DD);
    counters_.desc_bytes_to_memory.add(16);
  }
  void write_u32(uint64_t addr, uint32_t value) override {
    add_word(addr, value);
    counters_.desc_bytes_to_memory.add(4);
  }

  void flush() override {
    if (ops_used_ == 0) return;
    counters_.write_batches.add();
    counters_.write_copies.add(ops_used_);
    post();
  }


  void stop() override {
    if (!running_) return;
    store_release_sys(&control_->stop, 1);
    running_ = false;
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  struct PendingRead {
    uint8_t* dst;
    size_t offset;
    size_t len;
  };

  // Room for one more op and `len` bytes in the open job; posts it first if it is full.
  uint8_t* reserve(size_t len, Op*& op) {
    size_t aligned = (len + 15) & ~size_t(15);
    if (ops_used_ == kOpsPerJob || data_used_ + aligned > kDataPerJob) {
      if (!pending_reads_.empty()) complete_reads();  // never splits reads from their job
      else flush();
    }
    if (ops_used_ == 0) wait_for_slot();
    op = ops_ + size_t(open_job()) * kOpsPerJob + ops_used_++;
    uint8_t* at = data_ + size_t(open_job()) * kDataPerJob + data_used_;
    op->data_offset = uint32_t(data_used_);
    data_used_ += aligned;
    return at;
  }
  void add(OpKind kind, uint64_t gpu_addr, const void* src, size_t len) {
    Op* op;
    uint8_t* at = reserve(len, op);
    std::memcpy(at, src, len);
    op->gpu_addr = gpu_addr;
    op->len = uint16_t(len);
    op->kind = uint16_t(kind);
    ++(kind == OpKind::Write ? open_counts_.writes : open_counts_.ordered);
  }
  void add_word(uint64_t gpu_addr, uint32_t value) {
    Op* op;
    reserve(0, op);
    *op = Op{gpu_addr, value, 4, uint16_t(OpKind::Word)};
    ++open_counts_.ordered;
  }
  void queue_read(uint8_t* dst, uint64_t src, size_t len) override {
    if (len == 0) return;
    Op* op;
    reserve(len, op);
    op->gpu_addr = src;
    op->len = uint16_t(len);
    op->kind = uint16_t(OpKind::Read);
    ++open_counts_.reads;
    pending_reads_.push_back(PendingRead{dst, op->data_offset, len});
    read_job_ = open_job();
  }
  // Posts the open job with its reads (and any writes queued before them) and waits for it.
  void complete_reads() override {
    if (pending_reads_.empty()) return;
    counters_.read_batches.add();
    uint32_t job = post();
    uint64_t since = now_ns();
    wait_done(job + 1);
    counters_.read_wait_ns.add(now_ns() - since);
    for (const PendingRead& r : pending_reads_) std::memcpy(r.dst, data_ + size_t(read_job_) * kDataPerJob + r.offset, r.len);
    pending_reads_.clear();
  }

  uint32_t open_job() const { return posted_ % kJobs; }
  // Before the open job's space is written: the job that used it kJobs posts ago must be done.
  void wait_for_slot() {
    if (posted_ < kJobs) return;
    uint32_t needed = posted_ - kJobs + 1;
    if (int32_t(load_acquire_sys(&control_->done) - needed) >= 0) return;
    uint64_t since = now_ns();
    wait_done(needed);
    counters_.write_wait_ns.add(now_ns() - since);
  }
  // Spins until `jobs` jobs are done. A block that stops answering is reported once (with the
  // stream's state: a fault in the kernel shows there) rather than hanging silently.
  void wait_done(uint32_t jobs) {
    uint64_t since = now_ns();
    bool reported = false;
    while (int32_t(load_acquire_sys(&control_->done) - jobs) < 0) {
      if (!reported && now_ns() - since > 5'000'000'000ull) {
        std::fprintf(stderr, "gnf: GPU DMA engine: waiting 5 s for job %u (posted %u, done %u, kernel: %s)\n", jobs - 1,
                     posted_, load_acquire_sys(&control_->done), cudaGetErrorName(cudaStreamQuery(stream_)));
        reported = true;
      }
    }
  }
  // Hands the open job to the engine; returns its number.
  uint32_t post() {
    if (!running_) start();
    uint32_t job = posted_;
    open_counts_.ops = ops_used_;
    control_->counts[open_job()] = open_counts_;
    open_counts_ = {};
    // Release: the ops and their data are visible to the block's acquire of the doorbell.
    store_release_sys(&control_->doorbell, ++posted_);
    ops_used_ = 0;
    data_used_ = 0;
    return job;
  }
  // Launched on first use: an engine that never moves a byte holds no spinning block.
  void start() {
    store_release_sys(&control_->stop, 0);
    sm_dma_kernel<<<1, 1024, 0, stream_>>>(control_, ops_, data_, posted_);
    GNF_CUDA_CHECK_LAUNCH();
    running_ = true;
  }

  uint8_t* pinned_ = nullptr;
  Control* control_ = nullptr;
  Op* ops_ = nullptr;
  uint8_t* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  bool running_ = false;
  uint32_t posted_ = 0;
  uint32_t ops_used_ = 0;
  size_t data_used_ = 0;
  uint32_t read_job_ = 0;
  Control::Counts open_counts_{};
  std::vector<PendingRead> pending_reads_;
};

}  // namespace

std::unique_ptr<DmaEngine> make_sm_dma() { return std::make_unique<SmDma>(); }

}  // namespace gnf::nic

#include "nic/cuda_dma.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include "mem/cuda_alloc.h"
#include "nic/batched_read_dma.h"
#include "util/clock.h"
#include "util/cuda_check.h"

namespace gnf::nic {

namespace {

// Pinned staging for queued writes, in chunks. The open chunk collects bytes until a flush issues
// the copies that read it; it is then in flight until an event recorded after those copies
// completes, and only then handed out again. Chunks are what bounds the writes in flight: with
// all of them in flight, the next flush waits for the oldest.
class StagingChunks {
 public:
  StagingChunks(size_t chunk_bytes, uint32_t chunks) : chunk_bytes_(chunk_bytes), events_(chunks) {
    base_ = mem::alloc_host_pinned(chunk_bytes * chunks);
    for (cudaEvent_t& e : events_) GNF_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    in_flight_.assign(chunks, false);
  }
  ~StagingChunks() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    mem::free_host_pinned(base_);
  }
  StagingChunks(const StagingChunks&) = delete;
  StagingChunks& operator=(const StagingChunks&) = delete;

  // Room for `len` bytes (16-byte aligned) in the open chunk, or null if it is full.
  uint8_t* take(size_t len) {
    size_t aligned = (len + 15) & ~size_t(15);
    if (used_ + aligned > chunk_bytes_) return nullptr;
    uint8_t* at = base_ + size_t(open_) * chunk_bytes_ + used_;
    used_ += aligned;
    return at;
  }
  // The copies reading the open chunk have been issued on `stream`: it stays in flight until
  // they complete. Opens the next chunk, waiting for its last copies if they are still running
  // (the time waited is added to `wait_ns`).
  void close(cudaStream_t stream, Counter& wait_ns) {
    if (used_ == 0) return;
    GNF_CUDA_CHECK(cudaEventRecord(events_[open_], stream));
    in_flight_[open_] = true;
    open_ = (open_ + 1) % uint32_t(events_.size());
    used_ = 0;
    if (in_flight_[open_]) {
      if (cudaEventQuery(events_[open_]) == cudaErrorNotReady) {
        uint64_t since = now_ns();
        GNF_CUDA_CHECK(cudaEventSynchronize(events_[open_]));
        wait_ns.add(now_ns() - since);
      }
      in_flight_[open_] = false;
    }
  }

 private:
  size_t chunk_bytes_;
  uint8_t* base_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<bool> in_flight_;
  uint32_t open_ = 0;
  size_t used_ = 0;
};

// One cudaMemcpyBatchAsync worth of copies. A copy that continues the previous one in both source
// and destination is merged into it: consecutive descriptor write-backs of one ring become one
// copy, as a NIC writes several write-backs back in one PCIe transaction.
struct Batch {
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<size_t> sizes;
  void push(uint64_t dst, const uint8_t* src, size_t len) {
    if (!dsts.empty()) {
      auto* last_dst = static_cast<uint8_t*>(dsts.back());
      auto* last_src = static_cast<const uint8_t*>(srcs.back());
      if (last_dst + sizes.back() == reinterpret_cast<uint8_t*>(dst) && last_src + sizes.back() == src) {
        sizes.back() += len;
        return;
      }
    }
    dsts.push_back(reinterpret_cast<void*>(dst));
    srcs.push_back(src);
    sizes.push_back(len);
  }
  bool empty() const { return dsts.empty(); }
  void clear() {
    dsts.clear();
    srcs.clear();
    sizes.clear();
  }
  // The arrays are read during the call; the copies run later, in stream order. Returns the
  // number of copies issued.
  size_t issue(cudaStream_t stream) {
    if (empty()) return 0;
    size_t copies = dsts.size();
    cudaMemcpyAttributes attrs{};
    attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t attrs_index = 0;
    GNF_CUDA_CHECK(cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), dsts.size(), &attrs, &attrs_index, 1,
                                        stream));
    clear();
    return copies;
  }
};

class CudaDma final : public BatchedReadDma {
 public:
  CudaDma() : packet_staging_(kPacketChunkBytes, kChunks), desc_staging_(kDescChunkBytes, kChunks) {
    GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    read_staging_ = mem::alloc_host_pinned(kReadBytes);
  }
  ~CudaDma() override {
    try {
      flush();
      GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    } catch (...) {
    }
    cudaStreamDestroy(stream_);
    mem::free_host_pinned(read_staging_);
  }

  void write_packet(uint64_t dst, const uint8_t* src, uint32_t len) override {
    packets_.push(dst, stage(packet_staging_, src, len), len);
    counters_.packet_bytes_to_memory.add(len);
  }

  // The whole 16-byte write-back is one copy in the second batch, after every packet of the
  // first. The driver polls DD in status_error and then reads length and hash: status, length
  // and vlan share one aligned 8-byte word, and the write-back one aligned 16-byte block, which
  // a DMA write (a PCIe TLP, a copy-engine transfer) does not tear.
  void write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) override {
    descs_.push(desc_addr, stage(desc_staging_, &wb, sizeof(wb)), sizeof(wb));
    counters_.desc_bytes_to_memory.add(16);
  }

  void write_tx_writeback(uint64_t desc_addr) override {
    uint32_t status = IXGBE_ADVTXD_STAT_DD;
    descs_.push(desc_addr + offsetof(ixgbe_adv_tx_desc, wb.status), stage(desc_staging_, &status, 4), 4);
    counters_.desc_bytes_to_memory.add(16);
  }

  void write_u32(uint64_t addr, uint32_t value) override {
    descs_.push(addr, stage(desc_staging_, &value, 4), 4);
    counters_.desc_bytes_to_memory.add(4);
  }

  void flush() override {
    if (packets_.empty() && descs_.empty()) return;
    counters_.write_batches.add();
    counters_.write_copies.add(packets_.issue(stream_) + descs_.issue(stream_));
    packet_staging_.close(stream_, counters_.write_wait_ns);
    desc_staging_.close(stream_, counters_.write_wait_ns);
  }


 private:
  static constexpr uint32_t kChunks = 32;
  static constexpr size_t kPacketChunkBytes = 512 << 10;
  static constexpr size_t kDescChunkBytes = 32 << 10;
  static constexpr size_t kReadBytes = 4 << 20;

  // Copies into pinned staging so the caller may reuse its buffer at once; a full chunk is
  // flushed first (every frame and write-back is far smaller than a chunk).
  const uint8_t* stage(StagingChunks& staging, const void* src, size_t len) {
    uint8_t* at = staging.take(len);
    if (!at) {
      flush();
      at = staging.take(len);
    }
    std::memcpy(at, src, len);
    return at;
  }

  // Reads go on the same stream as the writes, so they see every flushed write. They land in
  // pinned memory (the copy engine reaches pageable memory only through a driver bounce buffer,
  // copy by copy) and are copied out once the stream has caught up; all queued reads are issued
  // together (one batch, one wait) unless staging runs out first.
  void queue_read(uint8_t* dst, uint64_t src, size_t len) override {
    if (len == 0) return;
    if (read_used_ + len > kReadBytes) complete_reads();
    reads_.push(reinterpret_cast<uint64_t>(read_staging_ + read_used_), reinterpret_cast<const uint8_t*>(src), len);
    pending_reads_.push_back(PendingRead{dst, read_used_, len});
    read_used_ += (len + 15) & ~size_t(15);
  }
  void complete_reads() override {
    if (pending_reads_.empty()) return;
    counters_.read_batches.add();
    reads_.issue(stream_);
    uint64_t since = now_ns();
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    counters_.read_wait_ns.add(now_ns() - since);
    for (const PendingRead& r : pending_reads_) std::memcpy(r.dst, read_staging_ + r.offset, r.len);
    pending_reads_.clear();
    read_used_ = 0;
  }

  struct PendingRead {
    uint8_t* dst;
    size_t offset;
    size_t len;
  };
  cudaStream_t stream_ = nullptr;
  StagingChunks packet_staging_;
  StagingChunks desc_staging_;
  uint8_t* read_staging_ = nullptr;
  size_t read_used_ = 0;
  Batch packets_, descs_, reads_;
  std::vector<PendingRead> pending_reads_;
};

}  // namespace

std::unique_ptr<DmaEngine> make_cuda_dma() { return std::make_unique<CudaDma>(); }

}  // namespace gnf::nic

#include "nic/cuda_dma.h"

#include <cstring>
#include <vector>

#include "mem/cuda_alloc.h"
#include "util/cuda_check.h"

namespace gnf::nic {

namespace {

class CudaDma final : public DmaEngine {
 public:
  CudaDma() {
    GNF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    staging_ = mem::alloc_host_pinned(kStagingBytes);
    read_staging_ = mem::alloc_host_pinned(kReadBytes);
  }
  ~CudaDma() override {
    try {
      flush();
    } catch (...) {
    }
    cudaStreamDestroy(stream_);
    mem::free_host_pinned(staging_);
    mem::free_host_pinned(read_staging_);
  }

  void write_packet(uint64_t dst, const uint8_t* src, uint32_t len) override {
    first_.push(dst, stage(src, len), len);
    counters_.packet_bytes_to_memory.add(len);
  }

  // Reads need not wait for queued writes: the NIC never reads what it has written and not yet
  // pushed out (a written-back descriptor comes back only after the driver saw it, i.e. after flush).
  // Reads land in pinned memory first: the copy engine writes pageable memory only through a
  // driver bounce buffer, copy by copy.
  void read_packets(const PacketRead* reads, uint32_t count) override {
    if (count == 0) return;
    Batch batch;
    uint64_t bytes = 0;
    size_t offset = 0;
    for (uint32_t i = 0; i < count; ++i) {
      if (offset + reads[i].len > kReadBytes) {
        read_into(batch, reads + i - batch.dsts.size());
        offset = 0;
      }
      batch.push(reinterpret_cast<uint64_t>(read_staging_ + offset), reinterpret_cast<const void*>(reads[i].src),
                 reads[i].len);
      offset += (reads[i].len + 15) & ~size_t(15);
      bytes += reads[i].len;
    }
    read_into(batch, reads + count - batch.dsts.size());
    counters_.packet_bytes_from_memory.add(bytes);
  }

  void read_descs(void* dst, uint64_t first_desc_addr, uint32_t count) override {
    if (count == 0) return;
    size_t bytes = size_t(count) * 16;
    GNF_CUDA_CHECK(cudaMemcpyAsync(read_staging_, reinterpret_cast<const void*>(first_desc_addr), bytes,
                                   cudaMemcpyDefault, stream_));
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::memcpy(dst, read_staging_, bytes);
    counters_.desc_bytes_from_memory.add(bytes);
  }

  // The whole 16-byte write-back goes in the second batch, after every packet of the first: a
  // descriptor is one aligned 16-byte write, as a NIC's write-back is one PCIe write.
  void write_rx_writeback(uint64_t desc_addr, const ixgbe_adv_rx_desc& wb) override {
    second_.push(desc_addr, stage(&wb, sizeof(wb)), sizeof(wb));
    counters_.desc_bytes_to_memory.add(16);
  }

  void write_tx_writeback(uint64_t desc_addr) override {
    uint32_t status = IXGBE_ADVTXD_STAT_DD;
    second_.push(desc_addr + offsetof(ixgbe_adv_tx_desc, wb.status), stage(&status, 4), 4);
    counters_.desc_bytes_to_memory.add(16);
  }

  void write_u32(uint64_t addr, uint32_t value) override {
    second_.push(addr, stage(&value, 4), 4);
    counters_.desc_bytes_to_memory.add(4);
  }

  void flush() override {
    if (first_.empty() && second_.empty()) return;
    issue(first_);
    issue(second_);
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    first_.clear();
    second_.clear();
    staged_ = 0;
  }

 private:
  static constexpr size_t kStagingBytes = 8 << 20;
  static constexpr size_t kReadBytes = 1 << 20;


  struct Batch {
    std::vector<void*> dsts;
    std::vector<const void*> srcs;
    std::vector<size_t> sizes;
    void push(uint64_t dst, const void* src, size_t len) {
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
  };

  // Issues `batch` (reads into read_staging_), waits, and copies each read out to its caller.
  void read_into(Batch& batch, const PacketRead* reads) {
    issue(batch);
    GNF_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (size_t i = 0; i < batch.dsts.size(); ++i) std::memcpy(reads[i].dst, batch.dsts[i], batch.sizes[i]);
    batch.clear();
  }

  // Copies bytes into pinned staging so the caller may reuse its buffer at once; copies from
  // pinned memory also go straight to the copy engine.
  const void* stage(const void* src, size_t len) {
    size_t aligned = (len + 15) & ~size_t(15);
    if (staged_ + aligned > kStagingBytes) flush();
    uint8_t* at = staging_ + staged_;
    std::memcpy(at, src, len);
    staged_ += aligned;
    return at;
  }

  void issue(Batch& batch) {
    if (batch.empty()) return;
    cudaMemcpyAttributes attrs{};
    attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t attrs_index = 0;
    GNF_CUDA_CHECK(cudaMemcpyBatchAsync(batch.dsts.data(), batch.srcs.data(), batch.sizes.data(), batch.dsts.size(),
                                        &attrs, &attrs_index, 1, stream_));
  }

  cudaStream_t stream_ = nullptr;
  uint8_t* staging_ = nullptr;
  uint8_t* read_staging_ = nullptr;
  size_t staged_ = 0;
  Batch first_, second_;
};

}  // namespace

std::unique_ptr<DmaEngine> make_cuda_dma() { return std::make_unique<CudaDma>(); }

}  // namespace gnf::nic

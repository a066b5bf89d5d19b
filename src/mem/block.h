// Memory domains and the blocks that rings and packet slots live in.
//
// gnf uses one address space: a descriptor's buffer address is the unified virtual address of the
// slot, whatever domain it is in (CUDA's UVA makes host, pinned and device pointers distinct values
// in one space). The NIC's DMA engine decides how to copy by the domain of the block an address
// belongs to.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gnf::mem {

enum class Domain : uint8_t {
  Host,        // ordinary pageable host memory (the cpu path)
  HostPinned,  // page-locked host memory mapped into the GPU (cudaHostAlloc, mapped)
  Device,      // GPU memory (cudaMalloc)
};

std::string_view domain_name(Domain d);

// An owning, page-aligned allocation in one domain. Zero-filled.
class Block {
 public:
  Block() = default;
  Block(Domain domain, size_t bytes);
  ~Block();
  Block(Block&& other) noexcept;
  Block& operator=(Block&& other) noexcept;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  Domain domain() const { return domain_; }
  // Copies into or out of the block, whatever its domain (a copy that waits, for GPU memory).
  void copy_in(uint8_t* at, const void* src, size_t bytes) const;
  void copy_out(void* dst, const uint8_t* at, size_t bytes) const;
  bool contains(uint64_t addr, size_t len = 1) const {
    uint64_t base = reinterpret_cast<uint64_t>(data_);
    return addr >= base && addr - base <= size_ && size_ - (addr - base) >= len;
  }

 private:
  void release();
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  Domain domain_ = Domain::Host;
};

}  // namespace gnf::mem

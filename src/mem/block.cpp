#include "mem/block.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "util/error.h"

namespace gnf::mem {

std::string_view domain_name(Domain d) {
  switch (d) {
    case Domain::Host: return "host";
    case Domain::HostPinned: return "host-pinned";
    case Domain::Device: return "device";
  }
  return "?";
}

Block::Block(Domain domain, size_t bytes) : domain_(domain) {
  if (domain != Domain::Host) {
    // Pinned and device blocks are made by the CUDA build (mem/cuda_block.cu).
    throw UserError("memory domain '" + std::string(domain_name(domain)) + "' needs the CUDA build");
  }
  size_t rounded = (bytes + 4095) & ~size_t(4095);
  data_ = static_cast<uint8_t*>(std::aligned_alloc(4096, rounded));
  if (!data_) throw std::bad_alloc();
  std::memset(data_, 0, rounded);
  size_ = bytes;
}

Block::~Block() { release(); }

Block::Block(Block&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), domain_(other.domain_) {}

Block& Block::operator=(Block&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    domain_ = other.domain_;
  }
  return *this;
}

void Block::release() {
  if (data_) std::free(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace gnf::mem

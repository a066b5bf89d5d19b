#include "mem/block.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "mem/cuda_alloc.h"
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
  size_t rounded = (bytes + 4095) & ~size_t(4095);
  switch (domain) {
    case Domain::Host:
      data_ = static_cast<uint8_t*>(std::aligned_alloc(4096, rounded));
      if (!data_) throw std::bad_alloc();
      std::memset(data_, 0, rounded);
      break;
    case Domain::HostPinned:
      data_ = alloc_host_pinned(rounded);
      std::memset(data_, 0, rounded);
      break;
    case Domain::Device:
      data_ = alloc_device(rounded);
      zero_fill(data_, rounded);
      break;
  }
  size_ = bytes;
}

void Block::copy_in(uint8_t* at, const void* src, size_t bytes) const {
  if (domain_ == Domain::Device) cuda_copy(at, src, bytes);
  else std::memcpy(at, src, bytes);
}

void Block::copy_out(void* dst, const uint8_t* at, size_t bytes) const {
  if (domain_ == Domain::Device) cuda_copy(dst, at, bytes);
  else std::memcpy(dst, at, bytes);
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
  if (data_) {
    switch (domain_) {
      case Domain::Host: std::free(data_); break;
      case Domain::HostPinned: free_host_pinned(data_); break;
      case Domain::Device: free_device(data_); break;
    }
  }
  data_ = nullptr;
  size_ = 0;
}

}  // namespace gnf::mem

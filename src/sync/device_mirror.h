// A GPU-memory copy of host tables (arrays of 32-bit words) that stays equal to them while kernels
// read it: updates arrive as a TableLog, which a small kernel replays in order next to the running
// data-path kernels. Nothing is stopped and no reader sees a half-made update (the ordering argument
// is at the replay kernel, device_mirror.cu).
//
// Built only with CUDA; without it the constructor throws UserError.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "sync/table_log.h"

namespace gnf::sync {

class DeviceMirror {
 public:
  static constexpr uint32_t kMaxRegions = 8;

  DeviceMirror();
  ~DeviceMirror();
  DeviceMirror(const DeviceMirror&) = delete;
  DeviceMirror& operator=(const DeviceMirror&) = delete;

  // Adds a region: GPU memory for `words` words, filled from `host` now. Returns the region's number,
  // which TableLog stores name. Call before readers start (it allocates).
  uint32_t add_region(const uint32_t* host, size_t words);
  // The region's GPU copy, for kernels.
  const uint32_t* device(uint32_t region) const;

  // Replays the log's stores into the GPU copies, phase by phase (a release between phases), and
  // returns once they are all visible to kernels. Safe while kernels read the regions.
  void apply(const TableLog& log);

  // Bytes of GPU memory the regions take.
  size_t device_bytes() const;

  // Buffers that come and go while kernels run (a rule set replaced whole: sync/swapped.h).
  // copy_in: a GPU copy of `bytes` bytes of host memory, finished when it returns. The memory comes
  // from a stream-ordered pool of the mirror's stream (cudaMallocFromPoolAsync), which, unlike
  // cudaMalloc and cudaFree, waits for no kernel. Running kernels learn of the copy only through a
  // later apply(): CUDA orders a copy before later work of its stream, the replay kernel among it.
  void* copy_in(const void* host, size_t bytes);
  // Frees a copy_in buffer once no reader can reach it. Never throws: errors go to stderr.
  void release(void* device) noexcept;
  // Reads GPU memory back while kernels run (counters they add to): each aligned 8-byte word whole.
  void copy_out(void* host, const void* device, size_t bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A copy_in buffer that goes back to its mirror when destroyed: where a table replaced whole keeps
// its GPU copy (its owner holds it until the readers' grace period ends: sync/swapped.h). The
// mirror must outlive it.
class DeviceCopy {
 public:
  DeviceCopy() = default;
  DeviceCopy(DeviceMirror& mirror, const void* host, size_t bytes)
      : mirror_(&mirror), data_(static_cast<uint8_t*>(mirror.copy_in(host, bytes))) {}
  ~DeviceCopy() {
    if (mirror_) mirror_->release(data_);
  }
  DeviceCopy(DeviceCopy&& other) noexcept { swap(other); }
  DeviceCopy& operator=(DeviceCopy&& other) noexcept {
    swap(other);  // this one's old buffer goes back when `other` is destroyed
    return *this;
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;

  // Null until made.
  uint8_t* data() const { return data_; }

 private:
  void swap(DeviceCopy& other) noexcept {
    std::swap(mirror_, other.mirror_);
    std::swap(data_, other.data_);
  }
  DeviceMirror* mirror_ = nullptr;
  uint8_t* data_ = nullptr;
};

}  // namespace gnf::sync

// A table replaced whole while readers look it up (an ACL's rule set): readers find the current
// version by one word; a writer builds the next version beside it, publishes it with one store, and
// frees the old version's memory once no reader can still be in it (sync/readers.h). No reader ever
// sees half of one version and half of another.
//
// A version is a descriptor (Version: trivially copyable, whole 32-bit words; pointers into the
// version's memory) and that memory (kept alive by a shared_ptr until its grace period is over).
// There are two descriptor slots: the current one, and the one the next version is written into,
// which publication reuses only after the grace period of the version last published there.
//
// Order. Host readers: the writer fills the free slot, then stores `current` with release; a reader
// loads `current` with acquire (poll_acquire), then reads the slot and the memory it points to.
// GPU readers: the slots and `current` have GPU copies (DeviceMirror regions). The version's memory
// was copied in (DeviceMirror::copy_in) before the replay that publishes it, on the same stream, so
// the replay kernel follows the copy; its phase of descriptor words is released before its phase
// that stores `current`; a GPU reader loads `current` relaxed and then fences with acquire at device
// scope (poll_acquire), which also drops the SM's L1 lines: a buffer that held an older version
// (the pool reuses memory) is never read from a stale line.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "sync/device_mirror.h"
#include "sync/ordering.h"
#include "sync/readers.h"
#include "util/error.h"
#include "util/hd.h"

namespace gnf::sync {

inline constexpr uint32_t kSwapSlots = 2;

// What a reader holds (by value, in an NF's view): host and device code.
template <typename Version>
struct SwappedView {
  const Version* slots;  // kSwapSlots
  const uint32_t* current;

  // The current version. A reader takes it once per burst and uses only it for the burst.
  GNF_HD const Version& load() const {
    return slots[poll_acquire(current, [](uint32_t) { return true; })];
  }
};

// The writer's side, host only. Not thread-safe: its owner serialises publications.
template <typename Version>
class SwappedTable {
  static_assert(std::is_trivially_copyable_v<Version>, "readers copy descriptors word by word");
  static_assert(sizeof(Version) % sizeof(uint32_t) == 0, "a descriptor is replayed as whole 32-bit words");
  static constexpr uint32_t kWords = sizeof(Version) / sizeof(uint32_t);

 public:
  // The first version, before any reader exists.
  SwappedTable(const Version& first, std::shared_ptr<void> memory) {
    host_[0] = first;
    memory_[0] = std::move(memory);
  }
  SwappedTable(const SwappedTable&) = delete;  // readers hold pointers into it
  SwappedTable& operator=(const SwappedTable&) = delete;

  void set_readers(ReaderRegistry* readers) { readers_ = readers; }

  SwappedView<Version> host_view() const { return {host_, &current_}; }

  // The GPU copies: `current` is the current version over its GPU memory (`memory`). Call once,
  // before readers start (it adds regions to `mirror`). Throws as DeviceMirror does.
  SwappedView<Version> make_device_view(DeviceMirror& mirror, const Version& current, std::shared_ptr<void> memory) {
    mirror_ = &mirror;
    device_[current_] = current;
    device_memory_[current_] = std::move(memory);
    slots_region_ = mirror.add_region(reinterpret_cast<const uint32_t*>(device_), kSwapSlots * kWords);
    current_region_ = mirror.add_region(&current_, 1);
    return {reinterpret_cast<const Version*>(mirror.device(slots_region_)), mirror.device(current_region_)};
  }
  bool on_device() const { return mirror_ != nullptr; }

  // Publishes a version: `host` for host readers and, once make_device_view was called, `device`
  // over `device_memory` for GPU readers. Waits up to a second for the readers of the version
  // published two versions ago, whose slot it takes; throws UserError if they stay longer, the
  // current version staying in place. Throws as DeviceMirror does.
  void publish(const Version& host, std::shared_ptr<void> memory, const Version& device = {},
               std::shared_ptr<void> device_memory = nullptr) {
    const uint32_t next = 1 - current_;
    if (grace_pending_[next] && !readers_->wait(grace_[next], std::chrono::seconds(1)))
      throw UserError("the readers of an older version stayed in it for over a second: not replaced");
    // No reader can reach the slot's old version any more: plain stores.
    host_[next] = host;
    memory_[next] = std::move(memory);
    if (mirror_) {
      device_[next] = device;
      device_memory_[next] = std::move(device_memory);
      TableLog log;
      const auto* words = reinterpret_cast<const uint32_t*>(&device_[next]);
      for (uint32_t w = 0; w < kWords; ++w) log.store(slots_region_, next * kWords + w, words[w]);
      log.release();
      log.store(current_region_, 0, next);
      mirror_->apply(log);
    }
    const uint32_t previous = current_;
    store_release_sys(&current_, next);
    grace_pending_[previous] = readers_ != nullptr;
    if (readers_) grace_[previous] = readers_->begin_grace();
  }

 private:
  Version host_[kSwapSlots] = {};
  Version device_[kSwapSlots] = {};  // what the GPU's slots region holds
  std::shared_ptr<void> memory_[kSwapSlots], device_memory_[kSwapSlots];
  uint32_t current_ = 0;
  bool grace_pending_[kSwapSlots] = {false, false};
  uint64_t grace_[kSwapSlots] = {0, 0};
  ReaderRegistry* readers_ = nullptr;
  DeviceMirror* mirror_ = nullptr;
  uint32_t slots_region_ = 0, current_region_ = 0;
};

}  // namespace gnf::sync

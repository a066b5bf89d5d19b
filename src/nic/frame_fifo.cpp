#include "nic/frame_fifo.h"

#include <bit>

namespace gnf::nic {

namespace {
constexpr size_t kLine = 128;  // `produced` and `consumed` each on a line (and a PCIe read) of their own
}  // namespace

FrameFifo::FrameFifo(mem::Domain domain, uint32_t records, uint32_t bytes) {
  const uint32_t n_records = std::bit_ceil(records), n_bytes = std::bit_ceil(bytes);
  block_ = mem::Block(domain, 2 * kLine + size_t(n_records) * sizeof(FifoRecord) + n_bytes);
  uint8_t* base = block_.data();
  ref_ = FrameFifoRef{reinterpret_cast<FifoRecord*>(base + 2 * kLine), base + 2 * kLine + size_t(n_records) * sizeof(FifoRecord),
                      reinterpret_cast<uint32_t*>(base), reinterpret_cast<uint32_t*>(base + kLine), n_records - 1,
                      n_bytes - 1};
}

}  // namespace gnf::nic

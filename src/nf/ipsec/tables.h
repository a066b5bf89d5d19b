// The host's owner of one IPsec configuration: the SAs, the inbound SPI index, both SPDs and the
// per-SA state (sequence counters, anti-replay windows), and the view of them that ipsec.h reads.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "nf/ipsec/config_file.h"
#include "nf/ipsec/ipsec.h"

namespace gnf::nf {

class IpsecTables {
 public:
  explicit IpsecTables(const IpsecConfig& config);
  IpsecTables(const IpsecTables&) = delete;  // the view points into it
  IpsecTables& operator=(const IpsecTables&) = delete;

  IpsecView view() { return view_; }
  const std::vector<IpsecSa>& sas() const { return sas_; }
  // The index of the SA of `direction` with `spi`, or kIpsecNoSa.
  uint32_t sa_index(IpsecDirection direction, uint32_t spi) const;

  // Everything the view reads and writes (the sequence counters and windows as they are now), laid
  // out in one buffer of 8-byte words for a byte-for-byte copy elsewhere (GPU memory).
  struct Image {
    std::vector<uint64_t> words;
    size_t sas, in_spis, in_sas, out_acl, out_entries, in_acl, in_entries, sequences, windows;  // offsets, bytes
  };
  Image image() const;
  // The view of a copy of `image` at `copy` (8-byte aligned).
  IpsecView view_at(const Image& image, uint8_t* copy) const;

 private:
  static uint64_t key(IpsecDirection direction, uint32_t spi) { return uint64_t(direction) << 32 | spi; }
  std::vector<IpsecSa> sas_;
  std::unordered_map<uint64_t, uint32_t> index_;  // key(direction, spi) -> SA
  std::vector<uint32_t> in_spis_, in_sas_;
  std::unique_ptr<Spd> out_spd_, in_spd_;
  std::vector<uint64_t> sequences_;
  std::vector<ReplayWindow> windows_;
  IpsecView view_{};
};

}  // namespace gnf::nf

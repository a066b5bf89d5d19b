#include "workload.h"

#include <random>

#include "wire/bytes.h"

namespace gnf::esp_bench {

std::string size_name(uint32_t size) { return size == kImix ? "imix" : std::to_string(size); }

namespace {

// Simple IMIX by packet count: 7 of 40 B, 4 of 576 B, 1 of 1500 B (IP packet sizes).
uint32_t imix_size(uint32_t i) {
  const uint32_t slot = i % 12;
  return slot < 7 ? 40 : slot < 11 ? 576 : 1500;
}

}  // namespace

Workload make_workload(const Algorithm& a, uint32_t size, uint32_t packets, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Workload w;
  for (uint32_t i = 0; i < kSas; ++i) {
    nf::IpsecSa sa{};
    sa.spi = 0x1000 + i;
    sa.cipher = a.cipher;
    sa.auth = a.auth;
    sa.mode = nf::EspMode::Ipv4Tunnel;
    for (uint8_t& b : sa.cipher_key) b = uint8_t(rng());
    for (uint8_t& b : sa.salt) b = uint8_t(rng());
    for (uint8_t& b : sa.auth_key) b = uint8_t(rng());
    w.sas.push_back(sa);
    sa.direction = nf::IpsecDirection::In;
    w.sas.push_back(sa);
  }
  w.slots.resize(uint64_t(packets) * kSlotBytes);
  for (uint8_t& b : w.slots) b = uint8_t(rng());
  const uint32_t align = nf::esp_alignment(a.cipher);
  for (uint32_t i = 0; i < packets; ++i) {
    const uint32_t inner = size == kImix ? imix_size(i) : size;
    const uint32_t payload = (inner + nf::kEspTrailerBytes + align - 1) / align * align;
    const uint32_t sa = 2 * (i % kSas);
    const PacketJob job{uint64_t(i) * kSlotBytes + kEspAt, payload, sa, i + 1ull};
    wire::store_be32(&w.slots[job.offset], w.sas[sa].spi);
    wire::store_be32(&w.slots[job.offset + 4], uint32_t(job.seq));
    w.jobs.push_back(job);
    w.inner_bytes += inner;
  }
  return w;
}

}  // namespace gnf::esp_bench

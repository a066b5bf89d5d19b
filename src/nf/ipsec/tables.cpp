#include "nf/ipsec/tables.h"

#include <algorithm>
#include <cstring>

namespace gnf::nf {

IpsecTables::IpsecTables(const IpsecConfig& config)
    : sas_(config.sas), sequences_(sas_.size(), 0), windows_(sas_.size(), ReplayWindow{}) {
  std::vector<uint32_t> inbound;
  for (uint32_t i = 0; i < sas_.size(); ++i) {
    index_[key(sas_[i].direction, sas_[i].spi)] = i;
    if (sas_[i].direction == IpsecDirection::In) inbound.push_back(i);
  }
  std::sort(inbound.begin(), inbound.end(), [&](uint32_t a, uint32_t b) { return sas_[a].spi < sas_[b].spi; });
  for (uint32_t i : inbound) {
    in_spis_.push_back(sas_[i].spi);
    in_sas_.push_back(i);
  }
  const auto out_sa = [this](uint32_t spi) { return sa_index(IpsecDirection::Out, spi); };
  const auto in_sa = [this](uint32_t spi) { return sa_index(IpsecDirection::In, spi); };
  out_spd_ = std::make_unique<Spd>(config.policies, IpsecDirection::Out, out_sa);
  in_spd_ = std::make_unique<Spd>(config.policies, IpsecDirection::In, in_sa);
  view_ = IpsecView{sas_.data(),        uint32_t(sas_.size()), in_spis_.data(),   in_sas_.data(),
                    uint32_t(in_spis_.size()), out_spd_->view(), in_spd_->view(), sequences_.data(),
                    windows_.data()};
}

namespace {

// Appends `count` items at `from` to `words`, from a word boundary; returns their offset in bytes.
template <typename T>
size_t append(std::vector<uint64_t>& words, const T* from, size_t count) {
  const size_t offset = words.size() * sizeof(uint64_t), bytes = count * sizeof(T);
  words.resize(words.size() + (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t), 0);
  if (bytes) std::memcpy(reinterpret_cast<uint8_t*>(words.data()) + offset, from, bytes);
  return offset;
}

template <typename T>
T* at(uint8_t* base, size_t offset) {
  return reinterpret_cast<T*>(base + offset);
}

}  // namespace

IpsecTables::Image IpsecTables::image() const {
  Image image;
  std::vector<uint64_t>& w = image.words;
  image.sas = append(w, sas_.data(), sas_.size());
  image.in_spis = append(w, in_spis_.data(), in_spis_.size());
  image.in_sas = append(w, in_sas_.data(), in_sas_.size());
  image.out_acl = append(w, static_cast<const uint64_t*>(out_spd_->classifier().arena()),
                         out_spd_->classifier().arena_bytes() / sizeof(uint64_t));
  image.out_entries = append(w, out_spd_->entries().data(), out_spd_->entries().size());
  image.in_acl = append(w, static_cast<const uint64_t*>(in_spd_->classifier().arena()),
                        in_spd_->classifier().arena_bytes() / sizeof(uint64_t));
  image.in_entries = append(w, in_spd_->entries().data(), in_spd_->entries().size());
  image.sequences = append(w, sequences_.data(), sequences_.size());
  image.windows = append(w, windows_.data(), windows_.size());
  return image;
}

IpsecView IpsecTables::view_at(const Image& image, uint8_t* copy) const {
  return IpsecView{at<const IpsecSa>(copy, image.sas),
                   uint32_t(sas_.size()),
                   at<const uint32_t>(copy, image.in_spis),
                   at<const uint32_t>(copy, image.in_sas),
                   uint32_t(in_spis_.size()),
                   SpdView{out_spd_->classifier().view_at(copy + image.out_acl), at<const SpdEntry>(copy, image.out_entries)},
                   SpdView{in_spd_->classifier().view_at(copy + image.in_acl), at<const SpdEntry>(copy, image.in_entries)},
                   at<uint64_t>(copy, image.sequences),
                   at<ReplayWindow>(copy, image.windows)};
}

uint32_t IpsecTables::sa_index(IpsecDirection direction, uint32_t spi) const {
  const auto found = index_.find(key(direction, spi));
  return found == index_.end() ? kIpsecNoSa : found->second;
}

}  // namespace gnf::nf

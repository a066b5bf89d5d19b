#include "nf/ipsec/tables.h"

#include <algorithm>

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

uint32_t IpsecTables::sa_index(IpsecDirection direction, uint32_t spi) const {
  const auto found = index_.find(key(direction, spi));
  return found == index_.end() ? kIpsecNoSa : found->second;
}

}  // namespace gnf::nf

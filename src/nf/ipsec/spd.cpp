#include "nf/ipsec/spd.h"

#include <algorithm>

namespace gnf::nf {

std::vector<const IpsecPolicy*> Spd::in_priority_order(const std::vector<IpsecPolicy>& policies,
                                                       IpsecDirection direction) {
  std::vector<const IpsecPolicy*> order;
  for (const IpsecPolicy& p : policies)
    if (p.direction == direction) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(),
                   [](const IpsecPolicy* a, const IpsecPolicy* b) { return a->priority > b->priority; });
  return order;
}

}  // namespace gnf::nf

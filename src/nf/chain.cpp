#include "nf/chain.h"

#include <fmt/format.h>

#include "util/error.h"

namespace gnf::nf {

std::vector<std::string> NfChain::known_types() { return {"ether_filter", "l2fwd", "l3fwd"}; }

NfChain::~NfChain() = default;

NfChain::NfChain(const std::vector<NfSpec>& specs, const NfContext& context) {
  if (specs.empty()) throw UserError("the NF chain is empty: configure at least one [[nf]]");
  if (specs.size() > kMaxChainLength)
    throw UserError(fmt::format("the NF chain has {} elements; at most {} are supported", specs.size(), kMaxChainLength));
  for (const NfSpec& spec : specs) {
    NfElement& element = view_.elements[view_.count++];
    routers_.emplace_back();
    if (spec.type == "l2fwd") {
      element.kind = NfKind::L2Fwd;
      element.l2fwd = configure_l2fwd(spec.params, context);
    } else if (spec.type == "ether_filter") {
      element.kind = NfKind::EtherFilter;
      element.ether_filter = configure_ether_filter(spec.params, context);
    } else if (spec.type == "l3fwd") {
      element.kind = NfKind::L3Fwd;
      routers_.back() = configure_l3fwd(spec.params, context, element.l3fwd);
    } else {
      spec.params.fail("type", fmt::format("unknown NF '{}' (known: {})", spec.type, fmt::join(known_types(), ", ")));
    }
    names_.push_back(spec.type);
  }
  for (auto& router : routers_) {
    if (!router) continue;
    if (!readers_) readers_ = std::make_unique<sync::ReaderRegistry>(true);
    router->set_readers(readers_.get());
    view_.readers = readers_->slots();
  }
}

const NfChainView& NfChain::device_view() {
  if (!device_view_) {
    NfChainView view = view_;
    for (uint32_t e = 0; e < view.count; ++e)
      if (routers_[e]) view.elements[e].l3fwd.tables = routers_[e]->device_tables();
    device_view_ = view;
  }
  return *device_view_;
}

std::optional<uint32_t> NfChain::router_element() const {
  for (uint32_t e = 0; e < view_.count; ++e)
    if (routers_[e]) return e;
  return std::nullopt;
}

std::vector<std::string> NfChain::counter_names(uint32_t element) const {
  switch (view_.elements[element].kind) {
    case NfKind::L2Fwd:
      return {std::begin(L2FwdView::kCounterNames), std::end(L2FwdView::kCounterNames)};
    case NfKind::EtherFilter:
      return {std::begin(EtherFilterView::kCounterNames), std::end(EtherFilterView::kCounterNames)};
    case NfKind::L3Fwd:
      return {std::begin(L3FwdView::kCounterNames), std::end(L3FwdView::kCounterNames)};
  }
  return {};
}

}  // namespace gnf::nf

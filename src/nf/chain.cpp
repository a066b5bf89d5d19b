#include "nf/chain.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"

namespace gnf::nf {
namespace {

// The two shapes of an NF's configure function (nf/kinds.h): one that returns its view, and one
// that fills the view over the tables of the Router it returns.
template <class View>
void configure_view(View (*configure)(const Params&, const NfContext&), const Params& params,
                    const NfContext& context, View& view, std::unique_ptr<Router>&) {
  view = configure(params, context);
}

template <class View>
void configure_view(std::unique_ptr<Router> (*configure)(const Params&, const NfContext&, View&), const Params& params,
                    const NfContext& context, View& view, std::unique_ptr<Router>& router) {
  router = configure(params, context, view);
}

#define GNF_NF_CONFIGURE(Kind, name, View, configure)                        \
  if (spec.type == #name) {                                                  \
    element.kind = NfKind::Kind;                                             \
    configure_view(configure, spec.params, context, element.name, router);   \
    return;                                                                  \
  }
void configure_element(const NfSpec& spec, const NfContext& context, NfElement& element,
                       std::unique_ptr<Router>& router) {
  GNF_NF_KINDS(GNF_NF_CONFIGURE)
  spec.params.fail("type",
                   fmt::format("unknown NF '{}' (known: {})", spec.type, fmt::join(NfChain::known_types(), ", ")));
}
#undef GNF_NF_CONFIGURE

}  // namespace

std::vector<std::string> NfChain::known_types() {
#define GNF_NF_TYPE_NAME(Kind, name, View, configure) #name,
  std::vector<std::string> types = {GNF_NF_KINDS(GNF_NF_TYPE_NAME)};
#undef GNF_NF_TYPE_NAME
  std::sort(types.begin(), types.end());
  return types;
}

NfChain::~NfChain() = default;

NfChain::NfChain(const std::vector<NfSpec>& specs, const NfContext& context) {
  if (specs.empty()) throw UserError("the NF chain is empty: configure at least one [[nf]]");
  if (specs.size() > kMaxChainLength)
    throw UserError(fmt::format("the NF chain has {} elements; at most {} are supported", specs.size(), kMaxChainLength));
  for (const NfSpec& spec : specs) {
    NfElement& element = view_.elements[view_.count++];
    configure_element(spec, context, element, routers_.emplace_back());
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
#define GNF_NF_COUNTER_NAMES(Kind, name, View, configure) \
  case NfKind::Kind: return {std::begin(View::kCounterNames), std::end(View::kCounterNames)};
  switch (view_.elements[element].kind) { GNF_NF_KINDS(GNF_NF_COUNTER_NAMES) }
#undef GNF_NF_COUNTER_NAMES
  return {};
}

}  // namespace gnf::nf

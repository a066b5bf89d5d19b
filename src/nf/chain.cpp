#include "nf/chain.h"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

#include "util/error.h"

namespace gnf::nf {
namespace {

// The two shapes of an NF's configure function (nf/kinds.h): one that returns its view, and one
// that fills the view over the tables of the owner it returns (nf/tables.h).
template <class View>
void configure_view(View (*configure)(const Params&, const NfContext&), const Params& params,
                    const NfContext& context, View& view, std::unique_ptr<NfTables>&) {
  view = configure(params, context);
}

template <class View, class Tables>
void configure_view(std::unique_ptr<Tables> (*configure)(const Params&, const NfContext&, View&), const Params& params,
                    const NfContext& context, View& view, std::unique_ptr<NfTables>& tables) {
  static_assert(std::is_base_of_v<NfTablesFor<View>, Tables>, "an NF's tables are an NfTablesFor its view");
  tables = configure(params, context, view);
}

#define GNF_NF_CONFIGURE(Kind, name, View, configure)                        \
  if (spec.type == #name) {                                                  \
    element.kind = NfKind::Kind;                                             \
    configure_view(configure, spec.params, context, element.name, tables);   \
    return;                                                                  \
  }
void configure_element(const NfSpec& spec, const NfContext& context, NfElement& element,
                       std::unique_ptr<NfTables>& tables) {
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
    configure_element(spec, context, element, tables_.emplace_back());
    names_.push_back(spec.type);
  }
  for (auto& tables : tables_) {
    if (!tables) continue;
    if (!readers_) readers_ = std::make_unique<sync::ReaderRegistry>(true);
    tables->set_readers(readers_.get());
    view_.readers = readers_->slots();
  }
}

#define GNF_NF_DEVICE_VIEW(Kind, name, View, configure) \
  case NfKind::Kind: static_cast<NfTablesFor<View>&>(*tables_[e]).device_view(view.elements[e].name); break;
const NfChainView& NfChain::device_view() {
  if (!device_view_) {
    NfChainView view = view_;
    for (uint32_t e = 0; e < view.count; ++e)
      if (tables_[e]) switch (view.elements[e].kind) { GNF_NF_KINDS(GNF_NF_DEVICE_VIEW) }
    device_view_ = view;
  }
  return *device_view_;
}
#undef GNF_NF_DEVICE_VIEW

std::optional<uint32_t> NfChain::router_element() const {
  for (uint32_t e = 0; e < view_.count; ++e)
    if (router(e)) return e;
  return std::nullopt;
}

std::vector<NfChain::Reload> NfChain::reload() {
  std::vector<Reload> out;
  for (uint32_t e = 0; e < view_.count; ++e) {
    if (!tables_[e]) continue;
    const std::string element = fmt::format("nf[{}] {}", e, names_[e]);
    try {
      if (std::optional<std::string> what = tables_[e]->reload()) out.push_back({e, true, element + ": " + *what});
    } catch (const UserError& error) {
      out.push_back({e, false, fmt::format("{}: not reloaded: {}", element, error.what())});
    }
  }
  return out;
}

std::vector<std::string> NfChain::counter_names(uint32_t element) const {
#define GNF_NF_COUNTER_NAMES(Kind, name, View, configure) \
  case NfKind::Kind: return {std::begin(View::kCounterNames), std::end(View::kCounterNames)};
  switch (view_.elements[element].kind) { GNF_NF_KINDS(GNF_NF_COUNTER_NAMES) }
#undef GNF_NF_COUNTER_NAMES
  return {};
}

}  // namespace gnf::nf

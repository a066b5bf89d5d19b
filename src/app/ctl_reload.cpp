// `gnf ctl reload [nf N | TYPE]`, `acl reload`, `sa reload`: the NFs' files read again while
// traffic flows, as SIGHUP does (nf/tables.h: NfTables::reload()), for the elements named. A file
// that does not load leaves the tables in use, and its "file:line: problem" goes back to the client.
#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/ctl_actions.h"
#include "nf/chain.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

std::optional<uint32_t> element_number(const std::string& text) {
  uint32_t n = 0;
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, n);
  if (error != std::errc() || at != end || text.empty()) return std::nullopt;
  return n;
}

// The elements a request names: nf N, those of a type, or every one with tables.
std::vector<uint32_t> named_elements(const CtlRequest& request, const CtlTarget& target) {
  std::string type;
  if (request.command == CtlCommand::AclReload) type = "acl";
  else if (request.command == CtlCommand::SaReload) type = "ipsec";
  else if (request.args.size() == 1) type = request.args[0];
  std::vector<uint32_t> elements;
  if (request.args.size() == 2) {
    const uint32_t n = *element_number(request.args[1]);
    if (n >= target.nfs.size())
      throw UserError(fmt::format("there is no nf[{}]: the chain has {} elements (show nf)", n, target.nfs.size()));
    elements.push_back(n);
  }
  for (uint32_t e = 0; e < target.nfs.size() && request.args.size() != 2; ++e)
    if (type.empty() ? target.nfs[e].tables != nullptr : target.nfs[e].type == type) elements.push_back(e);
  if (elements.empty() && !type.empty()) throw UserError(fmt::format("the NF chain has no {} (show nf)", type));
  return elements;
}

}  // namespace

void check_reload_args(const std::vector<std::string>& args) {
  if (args.size() == 2 && args[0] == "nf") {
    if (!element_number(args[1])) throw UserError(fmt::format("'{}' is not an element number", ctl_printable(args[1])));
  } else if (args.size() == 1) {
    const std::vector<std::string> types = nf::NfChain::known_types();
    if (std::find(types.begin(), types.end(), args[0]) == types.end())
      throw UserError(fmt::format("'{}' is not an NF type ({})", ctl_printable(args[0]), fmt::join(types, ", ")));
  } else if (!args.empty()) {
    throw UserError("nothing, nf N, or an NF type");
  }
}

nlohmann::json answer_reload(const CtlRequest& request, const CtlTarget& target) {
  nlohmann::json elements = nlohmann::json::array();
  std::string text;
  bool failed = false;
  for (uint32_t e : named_elements(request, target)) {
    const CtlTarget::Nf& nf = target.nfs[e];
    nlohmann::json element = {{"nf", e}, {"type", nf.type}};
    std::string what;
    try {
      const std::optional<std::string> done = nf.tables ? nf.tables->reload() : std::nullopt;
      element["reloaded"] = done.has_value();
      what = done ? *done : "nothing to reload";
    } catch (const UserError& error) {  // the tables in use stay
      failed = true;
      element["reloaded"] = false;
      element["error"] = error.what();
      what = fmt::format("not reloaded, the tables in use stay: {}", error.what());
    }
    element["what"] = what;
    const std::string line = fmt::format("nf[{}] {}: {}", e, nf.type, what);
    if (element.contains("error")) spdlog::error("control socket: {}", line);
    else spdlog::info("control socket: {}", line);
    text += line + "\n";
    elements.push_back(element);
  }
  if (elements.empty()) text = "nothing to reload: no NF of the chain has tables\n";
  // A file that did not load is an error for the client (its exit code), with every element's line.
  if (failed) throw UserError(text.substr(0, text.size() - 1));
  return {{"json", {{"elements", elements}}}, {"text", text}};
}

}  // namespace gnf::app

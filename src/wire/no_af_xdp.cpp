// A build without libxdp: links are AF_PACKET only ("auto" falls back at once).
#if !defined(GNF_HAVE_XDP)
#include <fmt/format.h>

#include "util/error.h"
#include "wire/af_xdp.h"

namespace gnf::wire {

std::unique_ptr<Link> open_af_xdp(const LinkOptions& options, const InterfaceInfo&, std::shared_ptr<const Netns>) {
  throw UserError(fmt::format("AF_XDP on {}: this gnf was built without libxdp (Debian: libxdp-dev, libbpf-dev)",
                              link_where(options)));
}

bool af_xdp_built() { return false; }

}  // namespace gnf::wire
#endif

// The control plane a `gnf run` or `gnf bench` attaches to its data path (path/host_hooks.h): the
// router's slow path (ctl/slow_path.h) for the frames its NFs send to the host, and with
// [netlink] the kernel table sync (ctl/netlink_sync.h), and with [router] local_delivery = "tap"
// the TAPs to the kernel (ctl/kernel_taps.h).
#pragma once
#include "ctl/config.h"
#include "path/host_hooks.h"

namespace gnf::app {

// Validates `config` (ctl::validate) and says how to attach its control plane to the path built
// from it. Throws UserError.
path::AttachHost control_plane(const ctl::Config& config);

}  // namespace gnf::app

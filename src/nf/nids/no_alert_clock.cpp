// The CPU-only build: alerts are never made on a GPU.
#if !defined(GNF_HAVE_CUDA)
#include "nf/nids/alert_clock.h"
#include "util/error.h"

namespace gnf::nf {

int64_t nids_unix_minus_gpu_timer_ns() {
  throw UserError("this gnf was built without CUDA: nids cannot run on a GPU");
}

}  // namespace gnf::nf
#endif

#include "util/clock.h"

#include <sched.h>

namespace gnf {

void spin_until(uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = now_ns();
    if (now >= deadline_ns) return;
    if (deadline_ns - now > 20'000) sched_yield();
  }
}

}  // namespace gnf

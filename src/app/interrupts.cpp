#include "app/interrupts.h"

#include <csignal>

namespace gnf::app {

namespace {
volatile std::sig_atomic_t g_interrupts = 0;
void on_signal(int) { g_interrupts = g_interrupts + 1; }
}  // namespace

void catch_interrupts() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

int interrupts() { return g_interrupts; }

}  // namespace gnf::app

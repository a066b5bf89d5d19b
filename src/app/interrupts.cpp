#include "app/interrupts.h"

#include <csignal>

namespace gnf::app {

namespace {
volatile std::sig_atomic_t g_interrupts = 0;
volatile std::sig_atomic_t g_reload_requests = 0;
void on_signal(int) { g_interrupts = g_interrupts + 1; }
void on_reload_request(int) { g_reload_requests = g_reload_requests + 1; }
}  // namespace

void catch_interrupts() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

int interrupts() { return g_interrupts; }

void catch_reload_requests() { std::signal(SIGHUP, on_reload_request); }

int reload_requests() { return g_reload_requests; }

}  // namespace gnf::app

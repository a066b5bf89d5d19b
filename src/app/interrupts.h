// Ctrl-C and SIGTERM while gnf runs: the first stops the sources and lets in-flight packets
// drain, a second stops at once. The commands poll interrupts().
#pragma once

namespace gnf::app {

void catch_interrupts();
// How many SIGINT/SIGTERM arrived since catch_interrupts().
int interrupts();

}  // namespace gnf::app

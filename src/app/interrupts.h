// Ctrl-C and SIGTERM while gnf runs: the first stops the sources and lets in-flight packets
// drain, a second stops at once. SIGHUP while `gnf run` runs: the NFs read their files again (an
// acl its rules), as daemons reload their configuration. The commands poll the counts.
#pragma once

namespace gnf::app {

void catch_interrupts();
// How many SIGINT/SIGTERM arrived since catch_interrupts().
int interrupts();

void catch_reload_requests();
// How many SIGHUP arrived since catch_reload_requests().
int reload_requests();

}  // namespace gnf::app

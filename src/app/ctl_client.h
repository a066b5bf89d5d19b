// `gnf ctl [--socket PATH] CMD [--json]`: asks a running gnf (app/ctl_server.h) and prints its
// answer, as vppctl does.
#pragma once
#include <string>
#include <vector>

namespace gnf::app {

// Sends `words` to the gnf listening on `socket` ("": the one socket in ctl_socket_folder()) and
// prints the answer (JSON with `json`). The exit code; throws UserError for a request the server
// refused, or no server.
int run_ctl(const std::string& socket, std::vector<std::string> words, bool json);

}  // namespace gnf::app

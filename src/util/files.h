// Files named by a config or a flag. Inputs: what gnf reads whole (configs, route and neighbour
// files) and what it hands to a library (pcaps). A folder, a device or an unreadable file is refused
// with the reason, and whole reads are bounded, so that /dev/zero or a runaway file cannot take the
// machine's memory. Outputs: a file gnf writes must not be one it reads.
#pragma once
#include <cstddef>
#include <string>

namespace gnf {

// Throws UserError "path: problem" unless `path` is a readable file (a regular file or a pipe).
void check_input_file(const std::string& path);
// Reads `path` whole, at most `max_bytes` of it; throws UserError "path: problem".
std::string read_input_file(const std::string& path, size_t max_bytes);
// Throws UserError "path: problem" unless `path` can be created or overwritten: its folder exists,
// and it is not a folder itself.
void check_output_file(const std::string& path);
// Whether both names are one existing file (the same device and inode).
bool same_file(const std::string& a, const std::string& b);

}  // namespace gnf

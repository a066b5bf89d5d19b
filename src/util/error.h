#pragma once
#include <stdexcept>
#include <string>

namespace gnf {

// A problem the user can fix (bad config, missing file); the message is meant for them.
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gnf

// The lines of a rule file (ACL rules, IPsec SAs and policies): what every such reader does first.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "util/error.h"

namespace gnf {

// Calls fn(line, number) for each line of `text`, numbered from 1, its '#' comment cut off. Throws
// UserError "name:number: rule: ..." at a line that holds a NUL byte: it would end the message
// that quotes the line, and no rule holds one.
template <typename Fn>
void for_each_rule_line(std::string_view text, const std::string& name, Fn&& fn) {
  for (uint32_t number = 1; !text.empty(); ++number) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == text.npos ? text.size() : end + 1);
    if (line.find('\0') != line.npos)
      throw UserError(fmt::format("{}:{}: rule: the line holds a NUL byte: this is not a text file", name, number));
    fn(line.substr(0, line.find('#')), number);
  }
}

}  // namespace gnf

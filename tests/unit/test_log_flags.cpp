// -v, --log-level and -q of gnf run and gnf bench (app/log_flags.h): -v or --log-level, each to its
// level; -q, which hides a command's own report, leaves the level alone.
#include <gtest/gtest.h>

#include "app/log_flags.h"

namespace gnf::app {
namespace {

spdlog::level::level_enum level_of(std::vector<std::string> args) {
  CLI::App cmd{"test"};
  LogFlags flags;
  add_log_options(cmd, flags, "quiet");
  std::vector<const char*> argv = {"test"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  cmd.parse(int(argv.size()), const_cast<char**>(argv.data()));
  return flags.level();
}

TEST(LogFlags, EachFlagSetsItsLevelAndNoneMeansInfo) {
  EXPECT_EQ(level_of({}), spdlog::level::info);
  EXPECT_EQ(level_of({"-v"}), spdlog::level::debug);
  EXPECT_EQ(level_of({"-vv"}), spdlog::level::trace);
  EXPECT_EQ(level_of({"-q"}), spdlog::level::info);
  EXPECT_EQ(level_of({"-q", "-v"}), spdlog::level::debug);
  EXPECT_EQ(level_of({"--log-level", "error"}), spdlog::level::err);
  EXPECT_EQ(level_of({"--log-level", "warning"}), spdlog::level::warn);
  EXPECT_EQ(level_of({"--log-level", "off"}), spdlog::level::off);
}

TEST(LogFlags, AnUnknownLevelOrBothVerboseAndALevelAreRefused) {
  EXPECT_THROW(level_of({"--log-level", "loud"}), CLI::ValidationError);
  EXPECT_THROW(level_of({"-v", "--log-level", "info"}), CLI::ExcludesError);
}

}  // namespace
}  // namespace gnf::app

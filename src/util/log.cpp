#include "util/log.h"

#include <memory>
#include <utility>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "util/name_table.h"

namespace gnf {

namespace {

constexpr std::pair<spdlog::level::level_enum, const char*> kLevelNames[] = {
    {spdlog::level::trace, "trace"}, {spdlog::level::debug, "debug"}, {spdlog::level::info, "info"},
    {spdlog::level::warn, "warning"}, {spdlog::level::err, "error"},   {spdlog::level::off, "off"},
};

// "%*": what a line says of its level after the program's name. Information says nothing, so the
// stats and the summary read as plain lines; critical is kept for gnf's own failures.
class LevelWord : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string_view word = word_of(msg.level);
    dest.append(word.data(), word.data() + word.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<LevelWord>(); }

 private:
  static std::string_view word_of(spdlog::level::level_enum level) {
    switch (level) {
      case spdlog::level::trace: return "trace: ";
      case spdlog::level::debug: return "debug: ";
      case spdlog::level::warn: return "warning: ";
      case spdlog::level::err: return "error: ";
      case spdlog::level::critical: return "internal error: ";
      default: return "";
    }
  }
};

void set_pattern(const std::string& pattern) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelWord>('*').set_pattern(pattern);
  spdlog::default_logger()->set_formatter(std::move(formatter));
}

}  // namespace

void set_up_log(spdlog::level::level_enum level) {
  auto logger = std::make_shared<spdlog::logger>("gnf", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
  set_pattern("%n: %*%v");
}

void log_times() { set_pattern("%Y-%m-%dT%H:%M:%S.%e %n: %*%v"); }

std::vector<std::string> log_level_names() { return names_of(kLevelNames); }

spdlog::level::level_enum log_level_from_name(const std::string& name) { return from_name(kLevelNames, name); }

}  // namespace gnf

#include "app/outputs.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/exit_codes.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gnf::app {

namespace {

struct NamedFile {
  std::string where;  // how an error names it: "file:line: key", or the flag
  std::string path;
};

// The files a config reads: itself, the ports' pcap sources, and every NF parameter that names an
// existing file (relative to the config's folder, as nf::Params::get_path takes them).
std::vector<NamedFile> inputs_of(const ctl::Config& c) {
  std::vector<NamedFile> in;
  if (c.file != "<command line>") in.push_back({c.file, c.file});
  for (size_t p = 0; p < c.ports.size(); ++p)
    if (c.ports[p].source.kind == ctl::SourceSpec::Kind::Pcap)
      in.push_back({ctl::where(c, fmt::format("port[{}].source.file", p)), c.ports[p].source.pcap.file});
  for (size_t n = 0; n < c.nfs.size(); ++n) {
    const nf::Params& params = c.nfs[n].params;
    for (const std::string& key : params.keys()) {
      const std::string path = params.path_if_string(key);
      std::error_code error;
      if (!path.empty() && std::filesystem::is_regular_file(path, error))
        in.push_back({ctl::where(c, fmt::format("nf[{}].{}", n, key)), path});
    }
  }
  return in;
}

}  // namespace

void check_outputs(const ctl::Config& c, const std::string& json_file) {
  std::vector<NamedFile> out;
  for (size_t p = 0; p < c.ports.size(); ++p)
    if (!c.ports[p].sink.pcap_file.empty())
      out.push_back({ctl::where(c, fmt::format("port[{}].sink.pcap", p)), c.ports[p].sink.pcap_file});
  if (!json_file.empty() && json_file != "-") out.push_back({"--json", json_file});
  const std::vector<NamedFile> in = inputs_of(c);
  for (size_t i = 0; i < out.size(); ++i) {
    try {
      check_output_file(out[i].path);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}: {}", out[i].where, e.what()));
    }
    for (const NamedFile& input : in)
      if (same_file(out[i].path, input.path))
        throw UserError(fmt::format("{}: {} is also an input ({}): writing it would destroy what is read", out[i].where,
                                    out[i].path, input.where));
    for (size_t j = 0; j < i; ++j)
      if (same_file(out[i].path, out[j].path) ||
          std::filesystem::absolute(out[i].path).lexically_normal() ==
              std::filesystem::absolute(out[j].path).lexically_normal())
        throw UserError(fmt::format("{}: {} is also the output of {}: each output needs a file of its own", out[i].where,
                                    out[i].path, out[j].where));
  }
}

JsonOutput::JsonOutput(std::string file) : file_(std::move(file)) {
  if (file_.empty() || file_ == "-") return;
  out_ = std::fopen(file_.c_str(), "w");
  if (!out_) throw UserError(fmt::format("--json: {}: cannot create it: {}", file_, std::strerror(errno)));
}

JsonOutput::~JsonOutput() {
  // Never written: the run did not start (its error is on stderr), and an empty file would read
  // as a summary cut short.
  if (!out_) return;
  std::fclose(out_);
  std::remove(file_.c_str());
}

void JsonOutput::write(const nlohmann::json& j, std::vector<std::string>& errors) {
  if (file_.empty()) return;
  const std::string text = j.dump(2) + "\n";
  FILE* to = out_ ? out_ : stdout;
  bool ok = std::fwrite(text.data(), 1, text.size(), to) == text.size();
  ok = std::fflush(to) == 0 && ok && !std::ferror(to);
  int error = ok ? 0 : errno;
  if (out_) {
    if (std::fclose(out_) != 0 && ok) {
      ok = false;
      error = errno;
    }
    out_ = nullptr;
  }
  if (ok) return;
  errors.push_back(fmt::format("--json: {}: writing the summary failed: {}", file_ == "-" ? "stdout" : file_,
                               std::strerror(error)));
  spdlog::error("the JSON that could not be written:\n{}", j.dump(2));
}

int exit_code(int consistency, const std::vector<std::string>& output_errors) {
  for (const std::string& error : output_errors) spdlog::error("{}", error);
  return consistency != kExitOk || output_errors.empty() ? consistency : kExitError;
}

}  // namespace gnf::app

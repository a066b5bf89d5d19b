#include "app/metrics.h"

#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include "app/ctl_command.h"
#include "driver/driver.h"
#include "util/error.h"
#include "util/log.h"

namespace gnf::app {

namespace {

using Labels = std::vector<prometheus::ClientMetric::Label>;

// Families by name, in the order they first appear.
class Families {
 public:
  void add(const std::string& name, const Labels& labels, double value) {
    auto [it, added] = index_.try_emplace(name, families_.size());
    if (added) families_.push_back({name, "gnf's " + name.substr(4) + " (see gnf ctl --json)",
                                    prometheus::MetricType::Counter, {}});
    prometheus::ClientMetric metric;
    metric.label = labels;
    metric.counter.value = value;
    families_[it->second].metric.push_back(std::move(metric));
  }

  // Every number of `object` (a JSON object of one port, NF, ...) as PREFIX_KEY, nested objects'
  // too (a port's drops), lists as one metric per entry labelled `list_label`.
  void add_object(const std::string& prefix, const nlohmann::json& object, const Labels& labels,
                  const std::string& list_label) {
    for (const auto& [key, value] : object.items()) {
      if (value.is_number()) {
        add(prefix + key, labels, value.get<double>());
      } else if (value.is_object()) {
        add_object(prefix, value, labels, list_label);
      } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) {
          if (!value[i].is_number()) continue;
          Labels with = labels;
          with.push_back({list_label, std::to_string(i)});
          add(prefix + key, with, value[i].get<double>());
        }
      }
    }
  }

  std::vector<prometheus::MetricFamily> take() { return std::move(families_); }

 private:
  std::map<std::string, size_t> index_;
  std::vector<prometheus::MetricFamily> families_;
};

// The control socket's answers over a snapshot, as metrics.
class SnapshotMetrics : public prometheus::Collectable {
 public:
  explicit SnapshotMetrics(std::function<path::Snapshot()> snapshot) : snapshot_(std::move(snapshot)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    const path::Snapshot now = snapshot_();
    path::Snapshot from_start;  // no baseline: Prometheus counters only grow
    CtlTarget target;  // its counters only
    target.snapshot = [&now] { return now; };
    auto answer = [&](CtlCommand command) { return answer_ctl_request({command, {}, true}, target, from_start)["json"]; };
    Families families;
    for (CtlCommand command : {CtlCommand::ShowPorts, CtlCommand::ShowQueues})
      for (const nlohmann::json& port : answer(command)) {
        nlohmann::json counters = port;
        counters.erase("name");
        families.add_object("gnf_port_", counters, {{"port", port["name"].get<std::string>()}}, "queue");
      }
    nlohmann::json driver = nlohmann::json::object();
    for (const auto& field : driver::DriverCounterValues::kFields) driver[field.name] = now.driver.*field.member;
    driver["host_tx"] = now.driver.host_tx;
    families.add_object("gnf_driver_", driver, {}, "");
    const nlohmann::json nfs = answer(CtlCommand::ShowNf);
    for (size_t e = 0; e < nfs.size(); ++e)
      families.add_object("gnf_nf_", nfs[e]["counters"],
                          {{"nf", std::to_string(e)}, {"type", nfs[e]["type"].get<std::string>()}}, "");
    const nlohmann::json runtime = answer(CtlCommand::ShowRuntime);
    if (runtime["counted"].get<bool>())
      for (size_t e = 0; e < runtime["elements"].size(); ++e) {
        const nlohmann::json& element = runtime["elements"][e];
        const Labels labels = {{"nf", std::to_string(e)}, {"type", element["type"].get<std::string>()}};
        families.add("gnf_nf_calls", labels, element["calls"].get<double>());
        families.add("gnf_nf_packets", labels, element["packets"].get<double>());
      }
    return families.take();
  }

 private:
  std::function<path::Snapshot()> snapshot_;
};

}  // namespace

MetricsServer::MetricsServer(const std::string& listen, const std::string& where,
                             std::function<path::Snapshot()> snapshot)
    : collectable_(std::make_shared<SnapshotMetrics>(std::move(snapshot))) {
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(listen, 1);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: {}: cannot serve metrics there: {}", where, listen, e.what()));
  }
  exposer_->RegisterCollectable(collectable_);
  spdlog::info("metrics on http://{}/metrics", listen);
}

MetricsServer::~MetricsServer() = default;

}  // namespace gnf::app

// Prometheus metrics of a running `gnf run` on [metrics] listen = "127.0.0.1:9464" (or
// --metrics-listen): each scrape takes a snapshot of the counters and names every one as the
// control socket's JSON does (app/ctl_command.h), under gnf_port_, gnf_driver_ and gnf_nf_:
//   gnf_port_rx_packets{port="port0"} 1234     gnf_port_rx_queue_packets{port="port0",queue="1"} 617
//   gnf_driver_tx_ring_full 0                   gnf_nf_forwarded{nf="0",type="l2fwd"} 1234
// Counters from the start of the run: `gnf ctl clear counters` changes the socket's answers only.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "path/snapshot.h"

namespace prometheus {
class Exposer;
class Collectable;
}  // namespace prometheus

namespace gnf::app {

class MetricsServer {
 public:
  // Serves http://`listen`/metrics (prometheus-cpp's server, threads of its own); `where` names
  // the key or flag for errors (UserError: an address that cannot be bound).
  MetricsServer(const std::string& listen, const std::string& where, std::function<path::Snapshot()> snapshot);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

 private:
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace gnf::app

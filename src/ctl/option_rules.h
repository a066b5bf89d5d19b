// What each config option accepts, written once. A config file's key and the `gnf run` or
// `gnf bench` flag that sets the same option are checked by the same rule: the readers of
// ctl/config_builder.h apply it to either (a TOML table or the flags given), the flags' parser
// runs it as the flag's check (app/config_flags.h), and validate() applies the driver's rules
// again to Configs built in code. A rule says what is wrong with a value; the caller says where.
#pragma once
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "driver/options.h"
#include "nic/pacing.h"
#include "nic/regs.h"

namespace gnf::ctl {

// Where a value was written decides one phrasing: a config file's message points at the line
// that shows the value, a flag's message repeats the value typed.
enum class Given { InFile, AsFlag };

struct IntRule {
  int64_t min = 0;
  int64_t max = 0;
  int64_t step = 1;              // values are multiples of it ...
  const char* step_reason = "";  // ... because of this
  std::vector<int64_t> only = {};  // when not empty: these values and no others (one_of)
  const char* only_what = "";
  const char* unit = "";

  // Any of `values` and nothing else; refused: "supported {what} are 10, 25 and 40 ({unit})".
  static IntRule one_of(std::vector<int64_t> values, const char* what, const char* unit = "") {
    return IntRule{0, 0, 1, "", std::move(values), what, unit};
  }
  // "" when the option takes `value`, else what is wrong with it.
  std::string problem(int64_t value, Given given) const;
  // What it takes, for a flag's help: "in [8, 32768], a multiple of 8".
  std::string describe() const;
};

// A number; with above_min the minimum itself is refused (a rate of 0 is no rate: leave it out).
struct NumberRule {
  double min = 0;
  double max = 0;
  bool above_min = false;
  std::string problem(double value) const;
  std::string describe() const;  // "in (0, 400]"
};

// One of a setting's names (util/name_table.h).
std::string choice_problem(const std::string& value, const std::vector<std::string>& names);

namespace rule {

// [[port]]: speed, queues (rx_queues, tx_queues); `--speed`, `--queues`.
inline const IntRule kSpeedGbps =
    IntRule::one_of({std::begin(nic::kSupportedSpeedsGbps), std::end(nic::kSupportedSpeedsGbps)}, "speeds", "Gbit/s");
inline const IntRule kQueues{1, nic::kMaxQueues};
// [port.source] of type generator: ip, size, flows; `--ip`, `--size`, `--flows`.
inline const IntRule kIpVersion = IntRule::one_of({4, 6}, "IP versions");
inline const IntRule kFrameSize{64, 9018};  // with FCS; the port's max_frame too
inline const IntRule kFlows{1, 65536};
inline const IntRule kCount{0, INT64_MAX};
// Both kinds of [port.source]: rate_pps, rate_gbps (layer 1); `--rate-pps`, `--rate-gbps`.
inline const NumberRule kRatePps{0, 1e12, true};
inline const NumberRule kRateGbps{0, 400, true};
// duration (of the run, and of a generator); `gnf run --duration`.
inline const NumberRule kSeconds{0, 1e6};

// [driver]; `gnf bench --rx-ring` and the rest, `--driver-threads`.
inline const IntRule kRingSize{8, 32768, 8, "the ring length in bytes is a multiple of 128"};
inline const IntRule kBurst{1, driver::kMaxBurst};
inline const IntRule kSlotSize{1024, 16384, 1024, "SRRCTL.BSIZEPACKET"};
inline const IntRule kHeadroom{0, 4096, 64, "frames start on a 64-byte line"};
inline const IntRule kPoolSlots{0, 1 << 24};
inline const IntRule kTailBatch{1, 4096};
inline const IntRule kTailTimeoutNs{1, 1'000'000'000};
inline const IntRule kStagedDepth{1, 64};
inline const IntRule kNfBlocks{0, 15};
inline const IntRule kDriverThreads{0, nic::kMaxQueues};  // 0: one per queue
// [nic] threads; `--nic-threads`.
inline const IntRule kNicThreads{1, 64};
// [threads] idle_sleep_us_max; `--idle-sleep-us-max`.
inline const IntRule kIdleSleepUs{1, 100'000};

}  // namespace rule

}  // namespace gnf::ctl

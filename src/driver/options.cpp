#include "driver/options.h"

namespace gnf::driver {

const char* tx_completion_name(TxCompletion c) {
  switch (c) {
    case TxCompletion::Auto: return "auto";
    case TxCompletion::HeadRegister: return "head";
    case TxCompletion::HeadWriteback: return "head-writeback";
    case TxCompletion::DescWriteback: return "writeback";
    case TxCompletion::None: return "none";
  }
  return "?";
}

const char* staged_mode_name(StagedMode m) {
  switch (m) {
    case StagedMode::ZeroCopy: return "zero-copy";
    case StagedMode::Copy: return "copy";
    case StagedMode::Persistent: return "persistent";
  }
  return "?";
}

}  // namespace gnf::driver

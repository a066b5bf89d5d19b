#include "driver/driver.h"

#include "util/error.h"

namespace gnf::driver {

void Driver::pause() { throw UserError("pausing the driver is supported on the bypass path only"); }
void Driver::resume() { throw UserError("resuming the driver is supported on the bypass path only"); }

}  // namespace gnf::driver

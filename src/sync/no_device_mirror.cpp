// The CPU-only build: a device mirror cannot be made.
#if !defined(GNF_HAVE_CUDA)
#include "sync/device_mirror.h"
#include "util/error.h"

namespace gnf::sync {

struct DeviceMirror::Impl {};

DeviceMirror::DeviceMirror() { throw UserError("this gnf was built without CUDA: tables cannot be copied to a GPU"); }
DeviceMirror::~DeviceMirror() = default;
uint32_t DeviceMirror::add_region(const uint32_t*, size_t) { return 0; }
const uint32_t* DeviceMirror::device(uint32_t) const { return nullptr; }
void DeviceMirror::apply(const TableLog&) {}
size_t DeviceMirror::device_bytes() const { return 0; }
void* DeviceMirror::copy_in(const void*, size_t) { return nullptr; }
void DeviceMirror::release(void*) noexcept {}
void DeviceMirror::copy_out(void*, const void*, size_t) {}

}  // namespace gnf::sync
#endif

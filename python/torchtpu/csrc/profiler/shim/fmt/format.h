// Kineto's GenericTraceActivity.h includes fmt, whose headers a system
// libtorch may not ship (Debian's libtorch-dev has Kineto's headers
// without libfmt-dev). It uses fmt::format only in addMetadata, which the
// device's profiler never calls, so a declaration serves. The build puts
// this folder last on the include path (-idirafter): a real fmt wins.
#pragma once
#include <string>

namespace fmt {
template <typename... T>
std::string format(const char* f, T&&... args);
}  // namespace fmt

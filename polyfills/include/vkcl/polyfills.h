// The Kernel SPIR-V module built from polyfills/*.cl: vkcl's own built-in implementations,
// exported by their mangled names (e.g. _Z3logf).
#pragma once

namespace vkcl::polyfills {

extern const unsigned char kSpirv[];
extern const unsigned long kSpirvSize;

}  // namespace vkcl::polyfills

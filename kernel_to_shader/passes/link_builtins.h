#pragma once

#include <memory>

#include "passes/pass.h"

namespace vkcl::k2s {

std::unique_ptr<Pass> create_link_builtins_pass();

}  // namespace vkcl::k2s

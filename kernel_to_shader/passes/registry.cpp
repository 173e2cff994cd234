#include "passes/copy_byval_arguments.h"
#include "passes/link_builtins.h"
#include "passes/loop_variables.h"
#include "passes/lower_to_shader.h"
#include "passes/pass.h"
#include "passes/reducible.h"
#include "passes/resumable_loops.h"
#include "passes/single_block_loops.h"
#include "passes/structurize.h"
#include "passes/vector_loads.h"
#include "passes/vulkan_memory_model.h"
#include "passes/widen_small_integers.h"

namespace vkcl::k2s {

namespace {
struct Entry {
  const char* name;
  std::unique_ptr<Pass> (*create)();
};
// Every pass, in the order translate() runs them.
const Entry kPasses[] = {
    {"link-builtins", create_link_builtins_pass},
    {"copy-byval-arguments", create_copy_byval_arguments_pass},
    {"resumable-loops", create_resumable_loops_pass},
    {"reducible", create_reducible_pass},
    {"structurize", create_structurize_pass},
    {"vector-loads", create_vector_loads_pass},
    {"lower-to-shader", create_lower_to_shader_pass},
    {"widen-small-integers", create_widen_small_integers_pass},
    {"vulkan-memory-model", create_vulkan_memory_model_pass},
    {"single-block-loops", create_single_block_loops_pass},
    {"loop-variables", create_loop_variables_pass},
};
}  // namespace

std::unique_ptr<Pass> create_pass(std::string_view name) {
  for (const auto& e : kPasses)
    if (name == e.name) return e.create();
  return nullptr;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& e : kPasses) names.push_back(e.name);
  return names;
}

}  // namespace vkcl::k2s

// Translator passes in the style of SPIRV-Tools' source/opt: one pass per file, a name equal
// to its command-line flag, Process() reporting failure / changed / unchanged.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

enum class PassStatus { Failure, SuccessWithChange, SuccessWithoutChange };

struct PassContext {
  TargetCaps caps;
  std::string log;  // diagnostics; a failing pass says here what it could not handle and where
  std::vector<KernelInterface> kernels;  // filled by lower-to-shader, one per entry point
  std::vector<uint8_t> program_data;     // initial program-scope variable contents
  // Offsets of 64-bit words of program_data that hold an offset into it (pointers to
  // program-scope variables): the data buffer's address is added to each when it is made.
  std::vector<uint32_t> program_relocations;
  uint32_t global_variable_size = 0;
  // __local memory is laid out per kernel (translate() does it as it extracts each kernel):
  // every region a kernel reaches gets an offset in its local word array, the others none.
  // A region is a kernel-scope __local variable or the scratch work-group functions use;
  // |offset_id| is the output OpSpecConstant standing for its byte offset until then.
  struct LocalRegion {
    uint32_t offset_id;
    uint32_t size;
    uint32_t alignment;
  };
  std::vector<LocalRegion> local_regions;
  uint32_t local_base = 0;  // bytes before the first region (generic accesses' scratch)
  // Structure every function that needs it through a dispatch loop where possible (a retry:
  // set when the structurizer's output failed validation).
  bool dispatch_loops = false;
  // Make kernels resumable where the driver cuts loops short (resumable-loops; a first try
  // that translate() repeats without it should anything fail).
  bool resumable_loops = false;
  // Resumable loops with barriers start at their place to stop (resumable_loops.cpp); a first
  // try, repeated without it where the structurizer cannot structure the result.
  bool rotate_resumed_loops = true;
  bool rotated = false;  // some loop was
  // resumable-loops: whether loops without barriers in kernels with barriers stop too (at
  // the barrier after them), and whether some did.
  bool wait_in_loops = true;
  bool waited = false;
  // Functions link-builtins imported from a library (polyfills, libclc).
  std::unordered_set<uint32_t> library_functions;
  // Kernels that resume where they stopped (resumable-loops), by entry point function id.
  struct Resumable {
    uint32_t record_size;  // bytes of each work-item's record
    bool group_records;    // each work-group saves its local memory too
  };
  std::map<uint32_t, Resumable> resumable;
  // Kernels whose loops can never reach the driver's loop limit (loop_bounds.h), by entry
  // point function id: they neither resume nor probe for cut loops.
  std::set<uint32_t> bounded_kernels;
  // Kernels whose work-groups never meet (work_group_packing.h), by entry point function id:
  // the lowering computes every kernel's ids so that several such work-groups can share a
  // Vulkan workgroup, where there is one.
  std::unordered_set<uint32_t> packable;
  // Loops (header labels) single-block-loops and loop-variables leave as they are: the
  // lowering's probes for cut loops, whose answer depends on where the driver's loop
  // limiter stops them.
  std::unordered_set<uint32_t> probe_loops;
  // The other kernels whose loops a launch can count from their arguments (loop_bounds.h).
  std::map<uint32_t, std::vector<CountedLoop>> counted_loops;
};

// Pointers the passes make to vkcl's own memory (the resume areas) carry this UserSemantic
// decoration, which copies of them keep: checked mode does not check accesses through them
// (TargetCaps::checked_memory).
inline constexpr const char* kInternalPointer = "vkcl internal pointer";

class Pass {
 public:
  virtual ~Pass() = default;
  virtual const char* name() const = 0;
  virtual PassStatus Process(ir::Module& module, PassContext& context) = 0;
};

// Every pass, by name. Returns nullptr for an unknown name.
std::unique_ptr<Pass> create_pass(std::string_view name);
std::vector<std::string> pass_names();

}  // namespace vkcl::k2s

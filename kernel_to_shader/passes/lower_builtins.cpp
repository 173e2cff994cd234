// OpenCL built-in variables computed from Vulkan built-ins and the dispatch block, so global
// offsets, split dispatches and non-uniform work-groups are invisible to the kernel.
#include <functional>

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

using spv::Op;

namespace {
// Dispatch block words (after the 64-bit argument block address); see DispatchBlock.
constexpr uint32_t kGlobalOffset = 0, kWorkDim = 3, kGlobalSize = 4, kEnqueuedLocalSize = 8,
                   kRegionGroupOffset = 12, kNumGroups = 16, kRegionGroupsX = 19;
}  // namespace

// The OpenCL SPIR-V environment puts built-in variables in Input, but older producers
// (LLVM/SPIR-V Translator up to v14, which wrote the SPIR-V 1.0 modules PyOpenCL ships) put
// them in UniformConstant, and leave them out of the entry point's interface: the BuiltIn
// decoration decides, wherever the variable lives.
bool Lowering::is_builtin_variable(uint32_t in_id) const {
  const ir::Instruction* v = def(in_id);
  if (!v || v->opcode != Op::OpVariable) return false;
  auto storage = spv::StorageClass(v->operands[0]);
  return storage == spv::StorageClass::Input ||
         (storage == spv::StorageClass::UniformConstant &&
          decoration(in_id, spv::Decoration::BuiltIn) != nullptr);
}

uint32_t Lowering::vulkan_builtin(spv::BuiltIn b, uint32_t out_type) {
  auto it = builtin_vars_.find(uint32_t(b));
  uint32_t var;
  if (it != builtin_vars_.end()) {
    var = it->second;
  } else {
    var = take_id();
    out_.globals.emplace_back(Op::OpVariable, t_ptr(spv::StorageClass::Input, out_type), var,
                              std::vector<uint32_t>{uint32_t(spv::StorageClass::Input)});
    decorate(var, spv::Decoration::BuiltIn, {uint32_t(b)});
    interface_.push_back(var);
    builtin_vars_[uint32_t(b)] = var;
  }
  return emit(Op::OpLoad, out_type, {var});
}

uint32_t Lowering::workgroup_size() {
  if (!workgroup_size_) {
    uint32_t ids[3];
    for (uint32_t c = 0; c < 3; ++c) {
      ids[c] = take_id();
      out_.globals.emplace_back(Op::OpSpecConstant, t_uint(32), ids[c], std::vector<uint32_t>{1});
      decorate(ids[c], spv::Decoration::SpecId, {kSpecLocalSizeX + c});
    }
    workgroup_size_ = take_id();
    out_.globals.emplace_back(Op::OpSpecConstantComposite, t_vec(t_uint(32), 3), workgroup_size_,
                              std::vector<uint32_t>{ids[0], ids[1], ids[2]});
    decorate(workgroup_size_, spv::Decoration::BuiltIn, {uint32_t(spv::BuiltIn::WorkgroupSize)});
  }
  return workgroup_size_;
}

uint32_t Lowering::packed_groups() {
  if (!packed_groups_) {
    packed_groups_ = take_id();
    out_.globals.emplace_back(Op::OpSpecConstant, t_uint(32), packed_groups_, std::vector<uint32_t>{1});
    decorate(packed_groups_, spv::Decoration::SpecId, {kSpecPackedGroups});
  }
  return packed_groups_;
}

// With P = kSpecPackedGroups OpenCL work-groups of x size L per Vulkan workgroup (of x size
// P * L), Vulkan local id x = v holds OpenCL local id v % L of group P * (Vulkan group) + v / L.
// Where P is 1 (every kernel but a packed launch's) the selects fold to the plain ids.
uint32_t Lowering::opencl_local_size(uint32_t c) {
  uint32_t u32 = t_uint(32);
  uint32_t size = emit(Op::OpCompositeExtract, u32, {workgroup_size(), c});
  return c == 0 && packs_groups() ? emit(Op::OpUDiv, u32, {size, packed_groups()}) : size;
}

// Whether P is 1: a bool the driver folds once the specialization constant is set.
uint32_t Lowering::unpacked() {
  return emit(Op::OpIEqual, t_bool(), {packed_groups(), c_u32(1)});
}

uint32_t Lowering::opencl_local_id(uint32_t c) {
  uint32_t u32 = t_uint(32);
  uint32_t local = emit(Op::OpCompositeExtract, u32, {vulkan_builtin(spv::BuiltIn::LocalInvocationId, t_vec(u32, 3)), c});
  if (c != 0 || !packs_groups()) return local;
  uint32_t within = emit(Op::OpUMod, u32, {local, opencl_local_size(0)});
  return emit(Op::OpSelect, u32, {unpacked(), local, within});
}

// The OpenCL group id along |c| within the region (before the region's group offset).
uint32_t Lowering::group_in_region(uint32_t c) {
  uint32_t u32 = t_uint(32);
  uint32_t group = emit(Op::OpCompositeExtract, u32, {vulkan_builtin(spv::BuiltIn::WorkgroupId, t_vec(u32, 3)), c});
  if (c != 0 || !packs_groups()) return group;
  uint32_t local = emit(Op::OpCompositeExtract, u32, {vulkan_builtin(spv::BuiltIn::LocalInvocationId, t_vec(u32, 3)), 0});
  uint32_t packed = emit(Op::OpIAdd, u32, {emit(Op::OpIMul, u32, {group, packed_groups()}),
                                           emit(Op::OpUDiv, u32, {local, opencl_local_size(0)})});
  return emit(Op::OpSelect, u32, {unpacked(), group, packed});
}

uint32_t Lowering::opencl_group_id(uint32_t c) {
  return emit(Op::OpIAdd, t_uint(32), {group_in_region(c), push_word(kRegionGroupOffset + c)});
}

uint32_t Lowering::runs_a_group() {
  return emit(Op::OpULessThan, t_bool(), {group_in_region(0), push_word(kRegionGroupsX)});
}

bool Lowering::lower_builtin_load(const ir::Instruction& i, uint32_t variable, int component) {
  const ir::Instruction* d = decoration(variable, spv::Decoration::BuiltIn);
  if (!d) return fail("load of an Input variable that is not a built-in");
  auto b = spv::BuiltIn(d->operands[2]);
  uint32_t u32 = t_uint(32);
  uint32_t uvec3 = t_vec(u32, 3);

  // Per-component value of a 3-vector built-in, as a 32-bit integer.
  std::function<uint32_t(spv::BuiltIn, uint32_t)> component_for;
  component_for = [&](spv::BuiltIn b, uint32_t c) -> uint32_t {
    switch (b) {
      case spv::BuiltIn::GlobalInvocationId: {
        // (Packed: the Vulkan local id runs on through the groups of its workgroup, which all
        // have the enqueued size.)
        uint32_t group = emit(Op::OpCompositeExtract, u32,
                              {vulkan_builtin(spv::BuiltIn::WorkgroupId, uvec3), c});
        if (c == 0 && packs_groups()) group = emit(Op::OpIMul, u32, {group, packed_groups()});
        group = emit(Op::OpIAdd, u32, {group, push_word(kRegionGroupOffset + c)});
        uint32_t base = emit(Op::OpIMul, u32, {group, push_word(kEnqueuedLocalSize + c)});
        uint32_t local = emit(Op::OpCompositeExtract, u32,
                              {vulkan_builtin(spv::BuiltIn::LocalInvocationId, uvec3), c});
        uint32_t id = emit(Op::OpIAdd, u32, {base, local});
        return emit(Op::OpIAdd, u32, {id, push_word(kGlobalOffset + c)});
      }
      case spv::BuiltIn::LocalInvocationId: return opencl_local_id(c);
      case spv::BuiltIn::WorkgroupId: return opencl_group_id(c);
      case spv::BuiltIn::WorkgroupSize: return opencl_local_size(c);
      case spv::BuiltIn::EnqueuedWorkgroupSize: return push_word(kEnqueuedLocalSize + c);
      case spv::BuiltIn::NumWorkgroups: return push_word(kNumGroups + c);
      case spv::BuiltIn::GlobalSize: return push_word(kGlobalSize + c);
      case spv::BuiltIn::GlobalOffset: return push_word(kGlobalOffset + c);
      default: return 0;
    }
  };
  auto component_of = [&](uint32_t c) { return component_for(b, c); };

  auto scalar = [&]() -> uint32_t {
    switch (b) {
      case spv::BuiltIn::WorkDim: return push_word(kWorkDim);
      case spv::BuiltIn::LocalInvocationIndex: {
        uint32_t index = vulkan_builtin(spv::BuiltIn::LocalInvocationIndex, u32);
        if (!packs_groups()) return index;
        // (z * size y + y) * size x + x, in OpenCL's ids and sizes.
        uint32_t linear = opencl_local_id(2);
        for (int c = 1; c >= 0; --c)
          linear = emit(Op::OpIAdd, u32, {emit(Op::OpIMul, u32, {linear, opencl_local_size(c)}), opencl_local_id(c)});
        return emit(Op::OpSelect, u32, {unpacked(), index, linear});
      }
      case spv::BuiltIn::SubgroupMaxSize:
        need_capability(spv::Capability::GroupNonUniform);
        return vulkan_builtin(spv::BuiltIn::SubgroupSize, u32);
      case spv::BuiltIn::SubgroupSize: {
        // OpenCL's is this sub-group's size: the last one of a work-group may be partial.
        need_capability(spv::Capability::GroupNonUniform);
        uint32_t total = workgroup_invocations();
        uint32_t size = vulkan_builtin(spv::BuiltIn::SubgroupSize, u32);
        uint32_t first = emit(Op::OpIMul, u32, {vulkan_builtin(spv::BuiltIn::SubgroupId, u32), size});
        uint32_t rest = emit(Op::OpISub, u32, {total, first});
        return emit(Op::OpSelect, u32, {emit(Op::OpULessThan, t_bool(), {rest, size}), rest, size});
      }
      case spv::BuiltIn::NumSubgroups: {
        // ceil(work-group size / sub-group size), computed: lavapipe's NumSubgroups rounds
        // down for a work-group that is not a multiple of the sub-group size.
        need_capability(spv::Capability::GroupNonUniform);
        uint32_t n = workgroup_invocations();
        uint32_t size = vulkan_builtin(spv::BuiltIn::SubgroupSize, u32);
        n = emit(Op::OpIAdd, u32, {n, emit(Op::OpISub, u32, {size, c_u32(1)})});
        return emit(Op::OpUDiv, u32, {n, size});
      }
      case spv::BuiltIn::NumEnqueuedSubgroups: {
        // Sub-groups of a full (enqueued-size) work-group: they differ from NumSubgroups in
        // the smaller last work-groups of a non-uniform NDRange.
        need_capability(spv::Capability::GroupNonUniform);
        uint32_t n = emit(Op::OpIMul, u32, {push_word(kEnqueuedLocalSize + 0), push_word(kEnqueuedLocalSize + 1)});
        n = emit(Op::OpIMul, u32, {n, push_word(kEnqueuedLocalSize + 2)});
        uint32_t size = vulkan_builtin(spv::BuiltIn::SubgroupSize, u32);
        n = emit(Op::OpIAdd, u32, {n, emit(Op::OpISub, u32, {size, c_u32(1)})});
        return emit(Op::OpUDiv, u32, {n, size});
      }
      case spv::BuiltIn::SubgroupId:
        need_capability(spv::Capability::GroupNonUniform);
        return vulkan_builtin(spv::BuiltIn::SubgroupId, u32);
      case spv::BuiltIn::SubgroupLocalInvocationId:
        need_capability(spv::Capability::GroupNonUniform);
        return vulkan_builtin(spv::BuiltIn::SubgroupLocalInvocationId, u32);
      case spv::BuiltIn::GlobalLinearId: {
        // ((id2 - off2) * size1 + (id1 - off1)) * size0 + (id0 - off0), in 64 bits.
        uint32_t u64 = t_uint(64);
        uint32_t linear = 0;
        for (int c = 2; c >= 0; --c) {
          uint32_t gid = component_for(spv::BuiltIn::GlobalInvocationId, c);
          uint32_t id = emit(Op::OpISub, u32, {gid, push_word(kGlobalOffset + c)});
          uint32_t id64 = emit(Op::OpUConvert, u64, {id});
          if (!linear) {
            linear = id64;
          } else {
            uint32_t size = emit(Op::OpUConvert, u64, {push_word(kGlobalSize + c)});
            linear = emit(Op::OpIAdd, u64, {emit(Op::OpIMul, u64, {linear, size}), id64});
          }
        }
        return linear;
      }
      default: return 0;
    }
  };

  uint32_t result_type = lower_type(i.type_id);
  Shape s = shape_of(result_type);
  uint32_t result = 0;
  if (b == spv::BuiltIn::SubgroupEqMask || b == spv::BuiltIn::SubgroupGeMask ||
      b == spv::BuiltIn::SubgroupGtMask || b == spv::BuiltIn::SubgroupLeMask ||
      b == spv::BuiltIn::SubgroupLtMask) {  // cl_khr_subgroup_ballot's masks, a uint4 each
    if (!(ctx_.caps.subgroup_features & kSubgroupBallot))
      return fail("the Vulkan device lacks subgroup ballot for " + describe(i));
    need_capability(spv::Capability::GroupNonUniformBallot);
    uint32_t v = vulkan_builtin(b, t_vec(u32, 4));
    bind(i.result_id, result_type, component >= 0 ? emit(Op::OpCompositeExtract, u32, {v, uint32_t(component)}) : v);
    return !failed_;
  }
  if (s.count == 3 && component < 0) {
    uint32_t parts[3];
    for (uint32_t c = 0; c < 3; ++c) {
      parts[c] = component_of(c);
      if (!parts[c]) return fail("built-in not supported: " + describe(i));
    }
    uint32_t v = emit(Op::OpCompositeConstruct, uvec3, {parts[0], parts[1], parts[2]});
    result = s.width == 32 ? v : emit(Op::OpUConvert, result_type, {v});
    // Sizes read 1 and ids read 0 in dimensions past the third (OpenCL's rule for
    // out-of-range dimensions), see OpVectorExtractDynamic.
    bool is_size = b == spv::BuiltIn::GlobalSize || b == spv::BuiltIn::WorkgroupSize ||
                   b == spv::BuiltIn::EnqueuedWorkgroupSize || b == spv::BuiltIn::NumWorkgroups;
    builtin_vector_default_[i.result_id] = is_size ? 1 : 0;
  } else {
    uint32_t v = component >= 0 ? component_of(uint32_t(component)) : scalar();
    if (!v) return fail("built-in not supported: " + describe(i));
    uint32_t w = (b == spv::BuiltIn::GlobalLinearId && component < 0) ? 64 : 32;
    result = to_width(v, w, s.width, false);
  }
  bind(i.result_id, result_type, result);
  return !failed_;
}

}  // namespace vkcl::k2s

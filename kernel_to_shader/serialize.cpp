// TargetCaps and TranslateResult as bytes, for the build cache (cl_frontend keeps them on disk).
// Every field is listed: a field added to the structures must be added here too, or cached
// translations would come back without it (the cache's entries never outlive the library
// that wrote them, but two builds with different caps would share one).
#include <algorithm>

#include "vkcl/common/byte_stream.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {
namespace {

// Optional triples (reqd_work_group_size and the hint): a presence word, then three values.
void put_triple(ByteWriter& o, const std::optional<std::array<uint32_t, 3>>& t) {
  o.u32(t ? 1 : 0);
  for (int k = 0; k < 3; ++k) o.u32(t ? (*t)[k] : 0);
}

std::optional<std::array<uint32_t, 3>> get_triple(ByteReader& in) {
  bool has = in.u32() != 0;
  std::array<uint32_t, 3> t{in.u32(), in.u32(), in.u32()};
  return has ? std::optional<std::array<uint32_t, 3>>(t) : std::nullopt;
}

// A launch value's terms: operation, width, value each.
void put_terms(ByteWriter& o, const std::vector<LaunchTerm>& terms) {
  o.u32(uint32_t(terms.size()));
  for (const LaunchTerm& t : terms) {
    o.u32(t.op);
    o.u32(t.width);
    o.u64(t.value);
  }
}

std::vector<LaunchTerm> get_terms(ByteReader& in) {
  std::vector<LaunchTerm> terms(in.count(16));
  for (LaunchTerm& t : terms) {
    t.op = in.u32();
    t.width = in.u32();
    t.value = in.u64();
  }
  return terms;
}

void write_interface(ByteWriter& o, const KernelInterface& k) {
  o.str(k.name);
  o.u32(uint32_t(k.args.size()));
  for (const KernelArg& a : k.args) {
    for (uint32_t v : {uint32_t(a.kind), a.offset, a.size, a.address_space, a.binding, uint32_t(a.image_dim),
                       uint32_t(a.image_access), uint32_t(a.image_texel), uint32_t(a.image_texel_used), uint32_t(a.read_only)})
      o.u32(v);
  }
  for (uint32_t v : {k.argument_block_size, k.push_constant_size, k.pushed_arguments_offset,
                     k.pushed_arguments_size, k.static_local_memory_size, k.private_memory_size,
                     k.program_data_address_offset, k.program_constants_binding, k.printf_buffer_address_offset})
    o.u32(v);
  o.u32(uint32_t(k.printf_calls.size()));
  for (const PrintfCall& c : k.printf_calls) {
    o.str(c.format);
    o.u32(c.record_bytes);
    o.u32(uint32_t(c.args.size()));
    for (const PrintfArg& a : c.args) {
      o.u32(uint32_t(a.kind));
      o.u32(a.components);
      o.u32(a.component_bytes);
      o.str(a.text);
    }
  }
  for (uint32_t v : {k.printf_max_record, k.loop_limit_status_offset, k.resume_area_offset,
                     k.resume_record_size, uint32_t(k.resume_group_records), uint32_t(k.rerunnable),
                     uint32_t(k.rerunnable_restoring_buffers), uint32_t(k.packable)})
    o.u32(v);
  put_triple(o, k.required_work_group_size);
  put_triple(o, k.work_group_size_hint);
  o.u32(k.compile_num_sub_groups);
  o.str(k.attributes);
  o.u32(k.check_table_offset);
  o.u32(uint32_t(k.check_sites.size()));
  for (const std::string& s : k.check_sites) o.str(s);
  o.words(k.check_site_arguments);
  o.u32(uint32_t(k.counted_loops.size()));
  for (const CountedLoop& c : k.counted_loops) {
    for (uint32_t v : {c.step_op, c.compare_op, c.width, uint32_t(c.tests_next), uint32_t(c.bound_first),
                       uint32_t(c.leaves_on)})
      o.u32(v);
    o.u64(c.passes);
    for (const std::vector<LaunchTerm>* terms : {&c.start, &c.step, &c.bound}) put_terms(o, *terms);
    o.words(c.enclosing);
  }
}

KernelInterface read_interface(ByteReader& in) {
  KernelInterface k;
  k.name = in.str();
  k.args.resize(in.count(36));
  for (KernelArg& a : k.args) {
    a.kind = ArgKind(in.u32());
    a.offset = in.u32();
    a.size = in.u32();
    a.address_space = in.u32();
    a.binding = in.u32();
    a.image_dim = ImageDim(in.u32());
    a.image_access = ImageAccess(in.u32());
    a.image_texel = ImageTexel(in.u32());
    a.image_texel_used = in.u32() != 0;
    a.read_only = in.u32() != 0;
  }
  k.argument_block_size = in.u32();
  k.push_constant_size = in.u32();
  k.pushed_arguments_offset = in.u32();
  k.pushed_arguments_size = in.u32();
  k.static_local_memory_size = in.u32();
  k.private_memory_size = in.u32();
  k.program_data_address_offset = in.u32();
  k.program_constants_binding = in.u32();
  k.printf_buffer_address_offset = in.u32();
  k.printf_calls.resize(in.count(12));
  for (PrintfCall& c : k.printf_calls) {
    c.format = in.str();
    c.record_bytes = in.u32();
    c.args.resize(in.count(16));
    for (PrintfArg& a : c.args) {
      a.kind = PrintfArg::Kind(in.u32());
      a.components = in.u32();
      a.component_bytes = in.u32();
      a.text = in.str();
    }
  }
  k.printf_max_record = in.u32();
  k.loop_limit_status_offset = in.u32();
  k.resume_area_offset = in.u32();
  k.resume_record_size = in.u32();
  k.resume_group_records = in.u32() != 0;
  k.rerunnable = in.u32() != 0;
  k.rerunnable_restoring_buffers = in.u32() != 0;
  k.packable = in.u32() != 0;
  k.required_work_group_size = get_triple(in);
  k.work_group_size_hint = get_triple(in);
  k.compile_num_sub_groups = in.u32();
  k.attributes = in.str();
  k.check_table_offset = in.u32();
  k.check_sites.resize(in.count(4));
  for (std::string& s : k.check_sites) s = in.str();
  k.check_site_arguments = in.words();
  k.counted_loops.resize(in.count(6 * 4 + 8 + 4 * 4));
  for (CountedLoop& c : k.counted_loops) {
    c.step_op = in.u32();
    c.compare_op = in.u32();
    c.width = in.u32();
    c.tests_next = in.u32() != 0;
    c.bound_first = in.u32() != 0;
    c.leaves_on = in.u32() != 0;
    c.passes = in.u64();
    for (std::vector<LaunchTerm>* terms : {&c.start, &c.step, &c.bound}) *terms = get_terms(in);
    c.enclosing = in.words();
  }
  return k;
}

}  // namespace

std::string describe_caps(const TargetCaps& c) {
  ByteWriter o;
  for (bool b : {c.int8, c.int16, c.int64, c.float16, c.float64, c.storage8, c.storage16, c.int64_atomics,
                 c.float32_atomic_add_global, c.float32_atomic_add_local, c.float32_atomic_min_max_global,
                 c.float32_atomic_min_max_local, c.memory_barriers_stall, c.loop_iteration_limit,
                 c.resumable_loops, c.resumable_barrier_loops, c.subgroups, c.subgroup_operations,
                 c.subgroup_extended_types, c.device_clock, c.subgroup_clock, c.preserve_inf_nan32,
                 c.preserve_inf_nan64, c.widen_half_from_bits, c.snap_packed_unorm, c.exact_fma, c.full_range_divide,
                 c.close_sqrt, c.exact_float64, c.exact_fma64, c.exact_sqrt64, c.vulkan_memory_model,
                 c.images, c.storage_image_write_without_format, c.read_write_images, c.checked_memory})
    o.u32(b);
  for (uint32_t v : {c.subgroup_features, c.max_push_constant_size, c.max_work_group_size, c.subgroup_size,
                     c.constant_buffer_words, c.max_constant_buffers})
    o.u32(v);
  return o.bytes;
}

std::string serialize(const TranslateResult& r) {
  ByteWriter o;
  o.u32(r.ok);
  o.str(r.log);
  o.u32(uint32_t(r.kernels.size()));
  for (const TranslatedKernel& k : r.kernels) {
    write_interface(o, k.interface);
    o.words(k.shader);
  }
  o.str(std::string(r.program_data.begin(), r.program_data.end()));
  o.words(r.program_relocations);
  o.u32(r.global_variable_size);
  return o.bytes;
}

bool deserialize(const std::string& bytes, TranslateResult* out) {
  ByteReader in{bytes};
  TranslateResult r;
  r.ok = in.u32() != 0;
  r.log = in.str();
  r.kernels.resize(in.count(64));
  for (TranslatedKernel& k : r.kernels) {
    k.interface = read_interface(in);
    k.shader = in.words();
  }
  std::string data = in.str();
  r.program_data.assign(data.begin(), data.end());
  r.program_relocations = in.words();
  r.global_variable_size = in.u32();
  if (!in.done()) return false;
  *out = std::move(r);
  return true;
}

}  // namespace vkcl::k2s

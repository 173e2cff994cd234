// The translator's public contract: Kernel-model SPIR-V in, Vulkan Shader-model SPIR-V plus a
// description of each kernel's interface out. Knows nothing of Vulkan handles or CL objects.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vkcl::k2s {

// Vulkan's VkSubgroupFeatureFlagBits, for TargetCaps::subgroup_features.
constexpr uint32_t kSubgroupBasic = 0x1, kSubgroupVote = 0x2, kSubgroupArithmetic = 0x4,
                   kSubgroupBallot = 0x8, kSubgroupShuffle = 0x10,
                   kSubgroupShuffleRelative = 0x20, kSubgroupClustered = 0x40;

// What the Vulkan device can do; decides which capabilities the output may use and which
// constructs must be emulated or rejected.
// Every field is also listed in describe_caps (serialize.cpp), which keys cached translations.
struct TargetCaps {
  bool int8 = false;             // shaderInt8
  bool int16 = false;            // shaderInt16
  bool int64 = true;             // shaderInt64 (required: pointers are 64-bit)
  bool float16 = false;          // shaderFloat16
  bool float64 = false;          // shaderFloat64
  bool storage8 = false;         // storageBuffer8BitAccess
  bool storage16 = false;        // storageBuffer16BitAccess
  // shaderBufferInt64Atomics and shaderSharedInt64Atomics (64-bit atomics on local memory
  // use the wide local arena, kernel_to_shader/passes/wide_arena.cpp).
  bool int64_atomics = false;
  // 32-bit float atomic add / min / max done natively (VK_EXT_shader_atomic_float(2)), on
  // device addresses (global) and on shared memory (local); elsewhere a compare-exchange loop.
  bool float32_atomic_add_global = false;
  bool float32_atomic_add_local = false;
  bool float32_atomic_min_max_global = false;
  bool float32_atomic_min_max_local = false;
  // The driver runs a memory barrier as a work-group execution barrier, so one that only
  // some work-items reach (an acquire load in a polling loop) stalls them and their work is
  // lost (lavapipe in Mesa 22). Atomics are then emitted relaxed, ordered loads and stores
  // become read-modify-writes and fences an atomic on a scratch word: the driver makes every
  // atomic read-modify-write sequentially consistent, which orders the accesses around it.
  bool memory_barriers_stall = false;
  // The driver cuts loops short, silently: one counter per batch of invocations allows
  // 65535 loop iterations in all, after which every loop exits at its next back edge
  // (Mesa's gallivm: llvmpipe, lavapipe). Each kernel then ends with a probe loop that finds
  // out whether its loops were cut and says so (KernelInterface::loop_limit_status_offset).
  bool loop_iteration_limit = false;
  // With loop_iteration_limit: kernels stop before the driver cuts their loops and resume in
  // the next dispatch (KernelInterface::resume_area_offset) where they can.
  bool resumable_loops = true;
  // And kernels with barriers (the work-group stops together after a barrier inside a
  // loop).
  bool resumable_barrier_loops = true;
  bool subgroups = true;         // GroupNonUniform basic in compute
  bool subgroup_operations = false;  // and vote, ballot and arithmetic (cl_khr_subgroups)
  uint32_t subgroup_features = 0;    // kSubgroup* bits: VkSubgroupFeatureFlags in compute
  bool subgroup_extended_types = false;  // subgroup operations on 8/16-bit values
  bool device_clock = false;      // VK_KHR_shader_clock's shaderDeviceClock
  bool subgroup_clock = false;    // and shaderSubgroupClock
  bool preserve_inf_nan32 = false;  // shaderSignedZeroInfNanPreserveFloat32
  bool preserve_inf_nan64 = false;  // shaderSignedZeroInfNanPreserveFloat64
  // Half to float (or double) from the half's bits, not OpFConvert: NVIDIA's driver (580)
  // folds (float)(half)x into x, so the rounding to half is lost (precision probe).
  bool widen_half_from_bits = false;
  // Float reads of CL_UNORM_SHORT_565 and _555 images rounded back to the channel's bits and
  // divided by 31 or 63 as the spec says: NVIDIA's driver (580) converts 5- and 6-bit
  // channels through 8 bits (bit replication: 28 of 31 read as 231 / 255, 0.3% off).
  bool snap_packed_unorm = false;
  bool exact_fma = false;        // GLSL.std.450 Fma is a fused, correctly rounded operation
                                 // (Vulkan does not promise it; the frontend probes the device)
  bool full_range_divide = true;  // 32-bit OpFDiv meets 2.5 ulp for divisors above 2^126 too
                                  // (Vulkan promises it only below; probed)
  bool close_sqrt = false;       // 32-bit GLSL.std.450 Sqrt within 1 ulp, specials IEEE's, up
                                 // to flushing denormals (probed likewise; Vulkan promises only
                                 // about 4.5 ulp, OpenCL wants 3)
  // 64-bit OpFAdd, OpFMul, OpFDiv and conversions to float are IEEE's, denormals kept (probed;
  // Vulkan promises nothing for doubles). Only then does the frontend report cl_khr_fp64.
  bool exact_float64 = false;
  bool exact_fma64 = false;   // 64-bit Fma fused (else polyfills/fp64.cl's fma)
  bool exact_sqrt64 = false;  // 64-bit Sqrt correctly rounded (else polyfills/fp64.cl's sqrt)
  // Vulkan's memory model with device scope (vulkanMemoryModel, vulkanMemoryModelDeviceScope):
  // shaders declare it instead of GLSL450 (passes/vulkan_memory_model.h).
  bool vulkan_memory_model = false;
  uint32_t max_push_constant_size = 128;
  // maxComputeWorkGroupInvocations: sizes the local scratch work-group functions use.
  uint32_t max_work_group_size = 1024;
  // The device's sub-group size (0 without sub-groups): SubgroupDispatch queries and the
  // SubgroupSize execution mode.
  uint32_t subgroup_size = 0;
  // Images (lower_image.cpp): whether the device reports them (a module that uses images is
  // refused without); written images are storage images without a format, which
  // need shaderStorageImageWriteWithoutFormat. read_write images are storage images of
  // format Unknown too, retyped per launch where the device cannot read that
  // (type_storage_images).
  bool images = false;
  bool storage_image_write_without_format = false;
  bool read_write_images = false;
  // Checked mode (VKCL_CHECKED=1): every access through a pointer is checked against the
  // objects the launch may reach (KernelInterface::check_table_offset).
  bool checked_memory = false;
  // Loads through a __constant argument may read a uniform buffer bound to its buffer, of at
  // most this many 32-bit words (maxUniformBufferRange / 4, a word array of stride 4, which
  // needs uniformBufferStandardLayout), in kernels with at most |max_constant_buffers| such
  // arguments (passes/constant_buffers.h; KernelArg::binding, kSpecConstantBuffer). 0: never.
  uint32_t constant_buffer_words = 0;
  uint32_t max_constant_buffers = 0;

  bool operator==(const TargetCaps&) const = default;
};

// The push-constant block every translated kernel reads (std430 layout, 88 bytes).
// The frontend fills one per dispatch (or per region of a split dispatch), followed by the
// argument block's bytes [pushed_arguments_offset, +pushed_arguments_size) (KernelInterface).
struct DispatchBlock {
  uint64_t argument_block_address;  // device address of this enqueue's argument block
  uint32_t global_offset[3];
  uint32_t work_dim;
  uint32_t global_size[3];
  uint32_t resume_epoch;  // kernels that resume: the launch's number (never 0)
  uint32_t enqueued_local_size[3];
  uint32_t resume_round;  // 0 for a launch's first dispatch, then 1, 2, ...
  uint32_t region_group_offset[3];  // added to gl_WorkGroupID to give the OpenCL group id
  uint32_t resume_slot;   // which 16 bytes of the indirect-argument area a yield writes
  uint32_t num_groups[3];           // get_num_groups(): ceil(global_size / enqueued_local_size)
  // OpenCL work-groups of this region along x: where several share a Vulkan workgroup
  // (kSpecPackedGroups), the last Vulkan workgroup's places past them run nothing.
  uint32_t region_groups_x;
};
static_assert(sizeof(DispatchBlock) == 88);
// At most this many argument bytes follow the DispatchBlock in push constants (the rest are
// read from the argument block in memory).
inline constexpr uint32_t kMaxPushedArgumentBytes = 128;

// Specialization constant ids every translated kernel declares.
inline constexpr uint32_t kSpecLocalSizeX = 0;
inline constexpr uint32_t kSpecLocalSizeY = 1;
inline constexpr uint32_t kSpecLocalSizeZ = 2;
// Number of 32-bit words of __local memory: static variables plus all __local arguments.
inline constexpr uint32_t kSpecLocalMemoryWords = 3;
// A bool, false unless set: the pipeline runs only a launch's first round of a kernel that
// resumes (KernelInterface::resume_area_offset), so the resume round is 0 and the driver drops
// the restoring code (which llvmpipe would otherwise run, masked, in every work-item).
inline constexpr uint32_t kSpecFirstRound = 4;
// A bool, false unless set: each work-group zeroes its local memory before the kernel starts
// (so no work-group reads what another left there: LeftoverLocals, CVE-2023-4969).
inline constexpr uint32_t kSpecZeroLocalMemory = 5;
// How many OpenCL work-groups, side by side along x, each Vulkan workgroup runs (1 unless set;
// only for a KernelInterface::packable kernel). kSpecLocalSizeX is then this many times the
// OpenCL work-group's x size; the kernel's ids, sizes and linear ids are OpenCL's.
inline constexpr uint32_t kSpecPackedGroups = 6;
// Bools, false unless set: what a pipeline knows of the regions it runs, so that the driver
// folds these dispatch block words instead of reading them in every work-item (llvmpipe
// reads push constants again for each batch of 8 work-items; get_global_id's three reads
// made a copy kernel 1.5x slower than rusticl's). kSpecNoGlobalOffset: every global_offset
// is 0. kSpecRegionAtOrigin: every region_group_offset is 0. kSpecWholeGroups: the OpenCL
// work-groups are of the enqueued local size (kSpecLocalSize*, x divided by
// kSpecPackedGroups, is enqueued_local_size).
inline constexpr uint32_t kSpecNoGlobalOffset = 7;
inline constexpr uint32_t kSpecRegionAtOrigin = 8;
inline constexpr uint32_t kSpecWholeGroups = 9;
// Bools, false unless set: the launch binds a uniform buffer over all of __constant argument
// k's buffer (KernelArg::binding), and loads through that argument read it (id this plus k,
// for k below kMaxConstantBufferArgument); and (id this plus kProgramConstantsBinding) over
// the program's data, read by loads of program-scope __constant variables. Where it is false
// the loads read device addresses.
inline constexpr uint32_t kSpecConstantBuffer = 64;
inline constexpr uint32_t kMaxConstantBufferArgument = 63;
inline constexpr uint32_t kProgramConstantsBinding = 63;
// Checked mode: bytes after the used local memory (and private memory) where checked accesses
// that fail go instead.
inline constexpr uint32_t kCheckSinkBytes = 32;
// Checked mode: the check table's room for objects, in global and in local memory each.
inline constexpr uint32_t kCheckTableEntries = 256;
// Checked mode: the "arguments" (KernelInterface::check_site_arguments) that stand for the
// kernel's __local variables and for the program's __global/__constant variables.
inline constexpr uint32_t kCheckLocalVariables = kCheckTableEntries - 1;
inline constexpr uint32_t kCheckProgramVariables = kCheckTableEntries - 2;

enum class ArgKind {
  GlobalPointer,    // __global/__constant buffer: 8-byte device address in the argument block
  LocalPointer,     // __local pointer: 4-byte byte offset into local memory, set by the frontend
  ByValue,          // scalar, vector or struct (also by-value structs passed as ByVal pointers)
  // A sampler_t: the 4-byte CLK_* bits of the sampler (bit 0 normalized coordinates, bits
  // 1-3 the addressing mode as CLK_ADDRESS_* gives them, 0x10 nearest, 0x20 linear).
  Sampler,
  // An image: a descriptor (set 0, KernelArg::binding) the frontend binds per enqueue, plus 24
  // bytes (six u32) in the argument block: the image's CL channel data type minus
  // CL_SNORM_INT8 and its CL channel order minus CL_R (SPIR-V's ImageChannelDataType and
  // ImageChannelOrder), which get_image_channel_* and CLK_ADDRESS_CLAMP's border colour read,
  // then its size as Vulkan's OpImageQuerySize gives it (width; then height or the layers of
  // a 1D array; then the depth or the layers of a 2D array; 0 past the image's), then 0.
  Image,
};

// How a kernel uses an image argument, which decides its descriptor.
enum class ImageAccess {
  ReadOnly,   // VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE (read with texel fetches)
  WriteOnly,  // VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
  ReadWrite,  // VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
};
// The numeric type the kernel reads or writes the image as (read_imagef/h, read_imagei,
// read_imageui): the image view's format must have this numeric format in Vulkan.
enum class ImageTexel { Float, Int, UInt };
// k1DBuffer: image1d_buffer_t, a texel buffer (uniform when read-only, else storage).
enum class ImageDim { k1D, k1DArray, k2D, k2DArray, k3D, k1DBuffer };

struct KernelArg {
  ArgKind kind;
  uint32_t offset;  // byte offset in the argument block
  uint32_t size;    // bytes the frontend writes at |offset| (8 for global pointers, 4 for local)
  uint32_t address_space = 0;  // SPIR-V storage class of pointer arguments
  // Image arguments: the binding in descriptor set 0 (UINT32_MAX when the kernel only queries
  // the image: no descriptor), the image type the kernel declares and how it uses the image.
  // __constant arguments some loads read as a uniform buffer: its binding (the argument's
  // index), bound over the buffer whenever it fits (kSpecConstantBuffer).
  uint32_t binding = UINT32_MAX;
  ImageDim image_dim = ImageDim::k2D;
  ImageAccess image_access = ImageAccess::ReadOnly;
  ImageTexel image_texel = ImageTexel::Float;
  bool image_texel_used = false;  // false: the kernel only queries the image (any format fits)
  bool read_only = false;  // a global pointer LLVM proved never written through (NoWrite)
};

// One printf call site. Records in the printf buffer are [u32 call index][arguments], each
// argument component in 4 bytes (8 for 64-bit values); %s arguments are constant strings
// known at translation time and take no space.
struct PrintfArg {
  enum Kind { Int, Float, String } kind = Int;
  uint32_t components = 1;       // > 1 for vector arguments (%v4f)
  uint32_t component_bytes = 4;  // 4 or 8
  std::string text;              // String
};
struct PrintfCall {
  std::string format;
  std::vector<PrintfArg> args;
  uint32_t record_bytes = 4;
};

// A value a launch knows before it runs, in postfix: constants, the kernel's scalar integer
// arguments and the launch's built-in sizes and ids, combined by integer operations (a loop's
// start, step or bound; CountedLoop). Each term leaves a |width|-bit value.
struct LaunchTerm {
  // OpConstant: |value|. OpFunctionParameter: the kernel's argument of index |value| (its
  // bytes, zero-extended). OpVariable: the built-in (spv::BuiltIn) in the low 32 bits of
  // |value|, its dimension in the high ones. Otherwise a SPIR-V integer operation on the
  // one (OpUConvert, OpSConvert) or two terms before it (OpExtInst: OpenCL.std's s_max,
  // u_max, s_min or u_min, the instruction number in |value|).
  uint32_t op = 0;
  uint32_t width = 0;
  uint64_t value = 0;
  static constexpr uint32_t kConstant = 43, kArgument = 55, kBuiltIn = 59;  // those opcodes
  bool operator==(const LaunchTerm& o) const { return op == o.op && width == o.width && value == o.value; }
};

// What a launch knows of its built-ins: the NDRange's dimensions, offset, global and local
// sizes (1, 0 beyond |work_dim|).
struct LaunchGeometry {
  uint32_t work_dim = 1;
  uint64_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool operator==(const LaunchGeometry& o) const;
};

// One term of a kernel's loop count at launch (KernelInterface::counted_loops): a loop's
// header passes per entry, or a call's passes, once per pass of each loop around it.
struct CountedLoop {
  // |bound| empty: the term's passes are |passes|. Otherwise the loop's induction variable
  // (|width| bits) goes from |start| by |step_op| (a SPIR-V opcode) with |step| on each
  // back edge, tested after the step where |tests_next|; its exit test is |compare_op| of it
  // and |bound| (|bound| first where |bound_first|), and the loop leaves when that gives
  // |leaves_on|. A start or step that differs between work-items (a grid-stride loop's start
  // from get_global_id) is counted for the work-item that takes the most passes.
  uint64_t passes = 0;
  std::vector<LaunchTerm> start, step, bound;
  uint32_t step_op = 0, compare_op = 0, width = 0;
  bool tests_next = false, bound_first = false, leaves_on = false;
  std::vector<uint32_t> enclosing;  // indices of the terms of the loops around it
};

struct KernelInterface {
  std::string name;
  std::vector<KernelArg> args;
  uint32_t argument_block_size = 0;    // bytes, a multiple of 16
  // Push constants: the pipeline layout's range (the DispatchBlock and room for arguments),
  // and which bytes of the argument block follow the DispatchBlock there.
  uint32_t push_constant_size = sizeof(DispatchBlock);
  uint32_t pushed_arguments_offset = 0;
  uint32_t pushed_arguments_size = 0;
  // Bytes of local memory the kernel itself needs: the __local variables (and work-group
  // function scratch) reachable from its entry point, not those of other kernels.
  uint32_t static_local_memory_size = 0;
  uint32_t private_memory_size = 0;    // bytes of emulated private memory per work-item
  // Where the frontend writes the device address of the program's data (program-scope
  // __constant/__global variables) in the argument block; UINT32_MAX when there is none.
  uint32_t program_data_address_offset = UINT32_MAX;
  // kProgramConstantsBinding where loads of program-scope __constant variables read a
  // uniform buffer over the program's data (while it fits one; kSpecConstantBuffer), else
  // UINT32_MAX.
  uint32_t program_constants_binding = UINT32_MAX;
  // printf: where the frontend writes the printf buffer's device address (UINT32_MAX when
  // the program never calls printf). The buffer is [u32 bytes used][u32 capacity][records],
  // followed by |printf_max_record| spare bytes that absorb records that do not fit.
  uint32_t printf_buffer_address_offset = UINT32_MAX;
  std::vector<PrintfCall> printf_calls;
  uint32_t printf_max_record = 0;
  // With TargetCaps::loop_iteration_limit: where the frontend writes the device address of
  // a u32 it zeroed, which the kernel sets to nonzero when the driver cut its loops short
  // (its results are then wrong); UINT32_MAX otherwise. The slot follows the arguments, so
  // the arguments are laid out as without it.
  uint32_t loop_limit_status_offset = UINT32_MAX;
  // With TargetCaps::checked_memory: where the frontend writes the device address of the
  // launch's check table (layout: kernel_to_shader/passes/checked_memory.cpp), and what each
  // checked access site is ("store in foo"), indexed by the site the table reports. Local
  // memory then needs kCheckSinkBytes more than the kernel's, for the sink.
  uint32_t check_table_offset = UINT32_MAX;
  std::vector<std::string> check_sites;
  std::vector<uint32_t> check_site_arguments;  // the argument a site's pointer comes from, or UINT32_MAX
  // With TargetCaps::loop_iteration_limit, kernels with loops stop before the driver cuts
  // them and resume in the next dispatch of the same launch (a "round"; see
  // kernel_to_shader/passes/resumable_loops.h). Where the frontend writes four device
  // addresses: each work-item's record (|resume_record_size| bytes, indexed by the global
  // linear id), each work-group's record (16 bytes plus 4 * (local memory words + 1), indexed
  // by the linear group id; only with |resume_group_records|), the indirect-dispatch
  // arguments (16 bytes per round and region, zeroed: a work-item that stops writes the
  // region's group counts at DispatchBlock::resume_slot, and the next round dispatches
  // indirectly from there), and each work-group's counters (4 * (1 + ceil(enqueued
  // work-group size / sub-group size)) bytes, indexed by the linear group id). UINT32_MAX
  // when the kernel does not resume.
  uint32_t resume_area_offset = UINT32_MAX;
  uint32_t resume_record_size = 0;
  bool resume_group_records = false;
  // Running the kernel a second time from the start gives what running it once does: it
  // writes no global memory (buffers, program-scope variables, read_write images), no atomics
  // outside local memory, no printf; only write_only images and local memory. A launch that
  // the driver cut short can then simply run again (resumable form) instead of always taking
  // the slower resumable form (whole module, conservatively: any function that writes makes
  // every kernel of the module not rerunnable).
  bool rerunnable = false;
  // Or rerunnable once the buffers of its pointer arguments that are not read_only are as
  // they were: the module writes global memory only through its kernels' parameters.
  bool rerunnable_restoring_buffers = false;
  // Its work-groups never meet (work_group_packing.h): no barrier, work-group or sub-group
  // function, sub-group built-in or __local memory of its own. A launch without __local
  // arguments may run several of its work-groups in one Vulkan workgroup (kSpecPackedGroups).
  bool packable = false;
  // With TargetCaps::loop_iteration_limit, a kernel whose loops are bounded by constants and
  // by its own scalar integer arguments: how a launch counts its loop passes from the
  // argument values (count_loop_passes); a launch that stays within the safe count cannot be
  // cut short, so it needs neither rounds nor a check. Empty otherwise.
  std::vector<CountedLoop> counted_loops;
  std::optional<std::array<uint32_t, 3>> required_work_group_size;  // reqd_work_group_size
  std::optional<std::array<uint32_t, 3>> work_group_size_hint;
  uint32_t compile_num_sub_groups = 0;  // SubgroupsPerWorkgroup(Id), 0 when not given
  std::string attributes;  // CL_KERNEL_ATTRIBUTES text
};

struct TranslatedKernel {
  KernelInterface interface;
  std::vector<uint32_t> shader;  // Vulkan 1.2 SPIR-V, one GLCompute entry point named "main"
};

struct TranslateResult {
  bool ok = false;
  std::string log;  // why it failed, naming the construct; warnings otherwise
  std::vector<TranslatedKernel> kernels;
  // Initial contents of the program's data: every program-scope __constant and __global
  // variable at its OpenCL layout. One buffer per program and device holds it, persistent
  // across launches.
  std::vector<uint8_t> program_data;
  // Offsets of 64-bit words of program_data holding an offset into it (a pointer to another
  // program-scope variable): the buffer's device address is added to each.
  std::vector<uint32_t> program_relocations;
  uint32_t global_variable_size = 0;  // bytes of __global program-scope variables
};

// Loop header passes (nested loops multiplied) per work-item that a launch of a kernel with
// |loops| (KernelInterface::counted_loops) makes at most with argument values |argument|
// (zero-extended bytes, nullopt for an argument it does not have) and the built-ins of
// |geometry| (none: loops that read built-ins are not counted); nullopt past
// kSafeLoopPasses, which no launch may exceed to be safe from the driver's loop limit.
inline constexpr uint64_t kSafeLoopPasses = 16384;  // a quarter of gallivm's 65535
std::optional<uint64_t> count_loop_passes(const std::vector<CountedLoop>& loops,
                                          const std::function<std::optional<uint64_t>(uint32_t)>& argument,
                                          const LaunchGeometry* geometry = nullptr);

// Specialization constants of a Kernel module: SpecId -> size in bytes (1 for booleans).
std::map<uint32_t, uint32_t> spec_constant_sizes(const std::vector<uint32_t>& kernel_spirv);
// |kernel_spirv| with |values| (SpecId -> little-endian bytes of the sizes above) as the
// specialization constants' values, and the OpSpecConstantOp instructions over them folded
// into plain constants.
std::vector<uint32_t> specialize(const std::vector<uint32_t>& kernel_spirv,
                                 const std::map<uint32_t, std::vector<uint8_t>>& values);

// |shader| (a translated kernel) with the storage images bound at |formats| (binding in set 0
// -> spv::ImageFormat) declared of that format instead of Unknown, and the
// StorageImage{Read,Write}WithoutFormat capabilities dropped where no image of format Unknown
// is read or written any more: read_write images on devices that cannot read storage images
// of format Unknown.
// Whether storage images of |format| (spv::ImageFormat) need the StorageImageExtendedFormats
// capability (shaderStorageImageExtendedFormats): all but the 32-bit, RGBA16 and RGBA8 ones.
bool extended_storage_format(uint32_t format);
std::vector<uint32_t> type_storage_images(const std::vector<uint32_t>& shader,
                                          const std::map<uint32_t, uint32_t>& formats);

// Links Kernel SPIR-V modules (clLinkProgram). A |library| keeps its exports; otherwise
// every imported function must be resolved. False with |error| (a build log) on failure.
bool link_modules(const std::vector<std::vector<uint32_t>>& modules, bool library,
                  std::vector<uint32_t>* out, std::string* error);

// Starts loading the libraries of built-in functions (libclc's SPIR-V, vkcl's polyfills) on a
// thread of its own, once per process, so that the first translate() that needs them does not
// wait as long (libclc is 2.5 MB to parse). Returns at once; process exit waits for it.
void preload_builtin_libraries();

// Where a module to translate comes from. An application's module is validated before any
// pass sees it. The one vkcl's own compiler just made (clang and llvm-spirv from OpenCL C)
// is validated only when its translation fails, to say which was at fault: validating it
// first took a sixth of a small kernel's translation.
enum class InputOrigin { Application, OwnCompiler };

// Translates every kernel of |kernel_spirv| (SPIR-V 1.0-1.6, Kernel capability) for a device
// with |caps|. Never throws or aborts on bad input: failures come back with ok == false.
TranslateResult translate(const std::vector<uint32_t>& kernel_spirv, const TargetCaps& caps,
                          InputOrigin origin = InputOrigin::Application);

// For caches (serialize.cpp): every field of |caps| as bytes, and a TranslateResult to bytes and
// back (false when |bytes| is not a whole one).
std::string describe_caps(const TargetCaps& caps);
std::string serialize(const TranslateResult& result);
bool deserialize(const std::string& bytes, TranslateResult* result);

}  // namespace vkcl::k2s

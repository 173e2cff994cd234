// link-builtins: OpenCL.std instructions that Vulkan has no exact instruction for become calls
// of library functions (tier 3 of DESIGN.md), imported with their callees into the module
// before it is structurized and lowered like user code. Libraries, in the order searched:
// vkcl's own polyfills (polyfills/), then Debian's libclc (libclc-15, the SPIR-V build Mesa
// uses). Vectors call the scalar function per component; the library's own vector versions
// do the same through OpExtInst, so nothing is lost.
#include <spirv/unified1/OpenCL.std.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ir/import.h"
#include "passes/link_builtins.h"
#include "vkcl/kernel_to_shader/translate.h"
#include "passes/pass.h"
#include "vkcl/polyfills.h"

namespace vkcl::k2s {

using spv::Op;
namespace cl = OpenCLLIB;

namespace {

// Signature letters: F the float gentype's scalar (f, d, Dh), G the whole gentype (vector
// mangled, for geometric functions), I/U a signed/unsigned integer gentype's scalar, i int,
// P a private pointer to what follows (the caller passes a temporary and stores it back).
struct Builtin {
  uint32_t op;
  const char* name;
  const char* signature;
};

const Builtin kBuiltins[] = {
    {cl::Acos, "acos", "F"}, {cl::Acosh, "acosh", "F"}, {cl::Acospi, "acospi", "F"},
    {cl::Asin, "asin", "F"}, {cl::Asinh, "asinh", "F"}, {cl::Asinpi, "asinpi", "F"},
    {cl::Atan, "atan", "F"}, {cl::Atan2, "atan2", "FF"}, {cl::Atanh, "atanh", "F"},
    {cl::Atanpi, "atanpi", "F"}, {cl::Atan2pi, "atan2pi", "FF"}, {cl::Cbrt, "cbrt", "F"},
    {cl::Cos, "cos", "F"}, {cl::Cosh, "cosh", "F"}, {cl::Cospi, "cospi", "F"},
    {cl::Erfc, "erfc", "F"}, {cl::Erf, "erf", "F"}, {cl::Exp, "exp", "F"},
    {cl::Exp2, "exp2", "F"}, {cl::Exp10, "exp10", "F"}, {cl::Expm1, "expm1", "F"},
    {cl::Fmod, "fmod", "FF"}, {cl::Fract, "fract", "FPF"}, {cl::Frexp, "frexp", "FPi"},
    {cl::Hypot, "hypot", "FF"}, {cl::Ilogb, "ilogb", "F"}, {cl::Ldexp, "ldexp", "Fi"},
    {cl::Lgamma, "lgamma", "F"}, {cl::Lgamma_r, "lgamma_r", "FPi"}, {cl::Log, "log", "F"},
    {cl::Log2, "log2", "F"}, {cl::Log10, "log10", "F"}, {cl::Log1p, "log1p", "F"},
    {cl::Logb, "logb", "F"}, {cl::Modf, "modf", "FPF"}, {cl::Pow, "pow", "FF"},
    {cl::Pown, "pown", "Fi"}, {cl::Powr, "powr", "FF"}, {cl::Remainder, "remainder", "FF"},
    {cl::Remquo, "remquo", "FFPi"}, {cl::Rootn, "rootn", "Fi"}, {cl::Sin, "sin", "F"},
    {cl::Sincos, "sincos", "FPF"}, {cl::Sinh, "sinh", "F"}, {cl::Sinpi, "sinpi", "F"},
    {cl::Tan, "tan", "F"}, {cl::Tanh, "tanh", "F"}, {cl::Tanpi, "tanpi", "F"},
    {cl::Tgamma, "tgamma", "F"}, {cl::Degrees, "degrees", "F"}, {cl::Radians, "radians", "F"},
    {cl::Smoothstep, "smoothstep", "FFF"}, {cl::Fma, "fma", "FFF"},
    // Of double only, where the device's instructions are not IEEE's (see wanted()).
    {cl::Sqrt, "sqrt", "F"}, {cl::Rsqrt, "rsqrt", "F"},
    // half_*: the full-precision function is within the half_ bound (8192 ulp) everywhere.
    {cl::Half_cos, "cos", "F"}, {cl::Half_exp, "exp", "F"}, {cl::Half_exp2, "exp2", "F"},
    {cl::Half_exp10, "exp10", "F"}, {cl::Half_log, "log", "F"}, {cl::Half_log2, "log2", "F"},
    {cl::Half_log10, "log10", "F"}, {cl::Half_powr, "powr", "FF"}, {cl::Half_sin, "sin", "F"},
    {cl::Half_tan, "tan", "F"}, {cl::Half_rsqrt, "half_rsqrt", "F"},
    {cl::Half_sqrt, "half_sqrt", "F"},
    // Geometric functions take whole vectors.
    {cl::Cross, "cross", "GG"}, {cl::Distance, "distance", "GG"}, {cl::Length, "length", "G"},
    {cl::Normalize, "normalize", "G"}, {cl::Fast_distance, "fast_distance", "GG"},
    {cl::Fast_length, "fast_length", "G"}, {cl::Fast_normalize, "fast_normalize", "G"},
    {cl::SMad_sat, "mad_sat", "III"}, {cl::UMad_sat, "mad_sat", "UUU"},
};

// The SPIR-V scope of a cl_khr_kernel_clock built-in's mangled name, or 0.
uint32_t clock_scope(const std::string& name) {
  for (const char* prefix : {"_Z17clock_read_device", "_Z22clock_read_hilo_device"})
    if (name == std::string(prefix) + "v") return uint32_t(spv::Scope::Device);
  for (const char* prefix : {"_Z21clock_read_work_group", "_Z26clock_read_hilo_work_group"})
    if (name == std::string(prefix) + "v") return uint32_t(spv::Scope::Workgroup);
  for (const char* prefix : {"_Z20clock_read_sub_group", "_Z25clock_read_hilo_sub_group"})
    if (name == std::string(prefix) + "v") return uint32_t(spv::Scope::Subgroup);
  return 0;
}

// cl_khr_work_group_uniform_arithmetic's work_group_{reduce,scan_inclusive,scan_exclusive}_
// {mul,and,or,xor,logical_and,logical_or,logical_xor}, from its mangled name: the SPIR-V
// instruction and group operation, or false. llvm-spirv 15 translates some of them itself.
struct UniformGroupOp {
  spv::Op op;
  spv::GroupOperation operation;
  bool logical;  // int in and out, bool in SPIR-V
};
bool uniform_group_op(const std::string& mangled, UniformGroupOp* out) {
  size_t digits = 2;
  while (digits < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[digits]))) ++digits;
  if (mangled.compare(0, 2, "_Z") != 0 || digits == 2) return false;
  size_t length = std::stoul(mangled.substr(2, digits - 2));
  std::string name = mangled.substr(digits, length), type = mangled.substr(digits + length);
  const std::pair<const char*, spv::GroupOperation> kinds[] = {
      {"work_group_reduce_", spv::GroupOperation::Reduce},
      {"work_group_scan_inclusive_", spv::GroupOperation::InclusiveScan},
      {"work_group_scan_exclusive_", spv::GroupOperation::ExclusiveScan}};
  for (const auto& [prefix, operation] : kinds) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::string what = name.substr(std::strlen(prefix));
    bool is_float = type == "f" || type == "d";
    bool is_int = type == "i" || type == "j" || type == "l" || type == "m";
    out->operation = operation;
    out->logical = false;
    if (what == "mul" && (is_float || is_int)) out->op = is_float ? spv::Op::OpGroupFMulKHR : spv::Op::OpGroupIMulKHR;
    else if (what == "and" && is_int) out->op = spv::Op::OpGroupBitwiseAndKHR;
    else if (what == "or" && is_int) out->op = spv::Op::OpGroupBitwiseOrKHR;
    else if (what == "xor" && is_int) out->op = spv::Op::OpGroupBitwiseXorKHR;
    else if (type != "i") return false;
    else if (what == "logical_and") out->op = spv::Op::OpGroupLogicalAndKHR, out->logical = true;
    else if (what == "logical_or") out->op = spv::Op::OpGroupLogicalOrKHR, out->logical = true;
    else if (what == "logical_xor") out->op = spv::Op::OpGroupLogicalXorKHR, out->logical = true;
    else return false;
    return true;
  }
  return false;
}

const Builtin* find_builtin(uint32_t op) {
  for (const Builtin& b : kBuiltins)
    if (b.op == op) return &b;
  return nullptr;
}

// Whether built-in |b| on scalar type |code| (f, d, Dh) is a library call; otherwise
// lower-to-shader emits it. fma: GLSL.std.450 Fma where the probe found it fused; float's
// otherwise goes exactly through doubles where the device has them (lower-to-shader), and
// else to libclc's software fma; double's to polyfills/fp64.cl, except in library code
// that does not need it (|loose_fma|, see needs_exact_fma). sqrt and rsqrt: lower-to-shader,
// but for doubles on a device whose 64-bit Sqrt is not correctly rounded. Every half function
// of the table is a library call (polyfills/half.cl).
bool wanted(const Builtin& b, const std::string& code, const TargetCaps& caps, bool loose_fma) {
  if (code == "Dh") return true;  // half: polyfills/half.cl, through float
  if (b.op == cl::Fma)
    return code == "d" ? !caps.exact_fma64 && !loose_fma
                       : !caps.exact_fma && !(code == "f" && caps.float64);
  if (b.op == cl::Sqrt || b.op == cl::Rsqrt) return code == "d" && !caps.exact_sqrt64;
  return true;
}

// The libclc double functions whose fmas must be exact: argument reductions and remainders
// that build exact products from them. The others use fma for polynomial steps that an
// unfused Fma serves within their bounds (tests/math --type double), and the exact
// emulation, inlined dozens of times per call, made their shaders too large to compile in
// reasonable time (tgamma of double16: minutes on lavapipe).
bool needs_exact_fma(uint32_t op) {
  return op == cl::Sin || op == cl::Cos || op == cl::Tan || op == cl::Sincos || op == cl::Fmod ||
         op == cl::Remainder || op == cl::Remquo;
}

std::string library_path() {
  if (const char* env = std::getenv("VKCL_LIBCLC")) return env;
  return VKCL_LIBCLC_SPIRV;
}

struct Libraries {
  std::unique_ptr<ir::Library> polyfills;  // searched first
  std::unique_ptr<ir::Library> libclc;
  std::string error;
};

const Libraries& libraries() {
  // Made once, by the first translate() or by preload_builtin_libraries()'s thread; a load
  // that throws (no memory) is tried again by the next caller. Never freed: taking apart
  // libclc's index at exit cost every process a few milliseconds.
  static const Libraries& libs = *new Libraries([] {
    Libraries l;
    std::vector<uint32_t> own(polyfills::kSpirvSize / 4);
    std::memcpy(own.data(), polyfills::kSpirv, own.size() * 4);
    std::string own_error;
    l.polyfills = ir::Library::load(std::move(own), &own_error, /*no_contraction=*/true);
    if (!l.polyfills) {
      l.error = "cannot parse vkcl's polyfill library: " + own_error;
      return l;
    }
    std::string path = library_path();
    // Read whole: a stream iterator byte by byte took 6 ms of the 2.5 MB.
    std::vector<uint32_t> words;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const std::streamoff bytes = in ? std::streamoff(in.tellg()) : -1;
    if (bytes > 0) {
      words.resize(size_t(bytes) / 4);
      in.seekg(0);
      in.read(reinterpret_cast<char*>(words.data()), std::streamsize(words.size() * 4));
    }
    if (words.empty() || !in) {
      l.error = "cannot read the libclc SPIR-V library " + path +
                " (Debian package libclc-15; VKCL_LIBCLC names another file)";
      return l;
    }
    std::string error;
    l.libclc = ir::Library::load(std::move(words), &error);
    if (!l.libclc) l.error = "cannot parse " + path + ": " + error;
    return l;
  }());
  return libs;
}

class Linker {
 public:
  Linker(ir::Module& m, PassContext& ctx) : m_(m), ctx_(ctx), importer_(m) {
    for (const auto& g : m_.globals)
      if (g.result_id) defs_[g.result_id] = &g;
  }

  PassStatus run() {
    user_functions_ = m_.functions.size();
    if (!resolve_declarations()) return PassStatus::Failure;
    for (const auto& e : m_.ext_inst_imports)
      if (ir::decode_string(e.operands, 0) == "OpenCL.std") opencl_ = e.result_id;
    if (opencl_) {
      // Imported functions are appended to m_.functions, so they are visited too.
      for (size_t f = 0; f < m_.functions.size(); ++f)
        if (!rewrite(f)) return PassStatus::Failure;
    }
    for (size_t f = user_functions_; f < m_.functions.size(); ++f)
      ctx_.library_functions.insert(m_.functions[f].id());
    return changed_ ? PassStatus::SuccessWithChange : PassStatus::SuccessWithoutChange;
  }

 private:
  // Built-ins llvm-spirv leaves as calls of declared functions (cl_khr_integer_dot_product's
  // packed forms): a polyfill of the same mangled name takes the declaration's place.
  bool resolve_declarations() {
    std::unordered_map<uint32_t, std::string> imports;  // declared function -> linkage name
    for (const auto& a : m_.annotations)
      if (a.opcode == Op::OpDecorate && a.operands.size() > 2 &&
          a.operands[1] == uint32_t(spv::Decoration::LinkageAttributes) &&
          a.operands.back() == uint32_t(spv::LinkageType::Import))
        imports[a.operands[0]] = ir::decode_string(a.operands, 2);
    std::unordered_map<uint32_t, uint32_t> replaced;  // declaration -> imported definition
    std::unordered_map<uint32_t, uint32_t> clocks;    // clock_read_* declaration -> its scope
    std::unordered_map<uint32_t, UniformGroupOp> group_ops;  // work_group_*_{mul,and,...}
    for (size_t k = 0; k < m_.functions.size(); ++k) {
      if (!m_.functions[k].blocks.empty()) continue;
      auto name = imports.find(m_.functions[k].id());
      if (name == imports.end()) continue;
      if (uint32_t scope = clock_scope(name->second)) {
        clocks[m_.functions[k].id()] = scope;
        continue;
      }
      UniformGroupOp g;
      if (uniform_group_op(name->second, &g)) {
        group_ops[m_.functions[k].id()] = g;
        continue;
      }
      const Libraries& libs = libraries();
      if (!libs.polyfills) continue;
      std::string error;
      uint32_t id = importer_.function(*libs.polyfills, name->second, &error);
      if (!error.empty()) {
        ctx_.log += "error: " + error + "\n";
        return false;
      }
      if (id) replaced[m_.functions[k].id()] = id;
    }
    if (!group_ops.empty()) {
      // Work-group scope; the logical forms compare their int with 0 and select 1 or 0 back.
      uint32_t u32 = importer_.intern(ir::Instruction(Op::OpTypeInt, 0, 0, {32, 0}));
      uint32_t boolean = importer_.intern(ir::Instruction(Op::OpTypeBool, 0, 0));
      uint32_t scope = importer_.intern(ir::Instruction(Op::OpConstant, u32, 0, {uint32_t(spv::Scope::Workgroup)}));
      uint32_t zero = importer_.intern(ir::Instruction(Op::OpConstant, u32, 0, {0}));
      uint32_t one = importer_.intern(ir::Instruction(Op::OpConstant, u32, 0, {1}));
      for (ir::Function& f : m_.functions)
        for (ir::Block& b : f.blocks) {
          std::vector<ir::Instruction> out;
          for (ir::Instruction& i : b.instructions) {
            auto g = i.opcode == Op::OpFunctionCall ? group_ops.find(i.operands[0]) : group_ops.end();
            if (g == group_ops.end()) {
              out.push_back(std::move(i));
              continue;
            }
            const UniformGroupOp& u = g->second;
            uint32_t x = i.operands[1];
            if (!u.logical) {
              out.emplace_back(u.op, i.type_id, i.result_id, std::vector<uint32_t>{scope, uint32_t(u.operation), x});
              continue;
            }
            uint32_t b_in = m_.take_id(), b_out = m_.take_id();
            out.emplace_back(Op::OpINotEqual, boolean, b_in, std::vector<uint32_t>{x, zero});
            out.emplace_back(u.op, boolean, b_out, std::vector<uint32_t>{scope, uint32_t(u.operation), b_in});
            out.emplace_back(Op::OpSelect, i.type_id, i.result_id, std::vector<uint32_t>{b_out, one, zero});
          }
          b.instructions = std::move(out);
        }
      reindex();
      declare_extension("SPV_KHR_uniform_group_instructions", spv::Capability::GroupUniformArithmeticKHR);
      changed_ = true;
      for (const auto& [id, op] : group_ops) replaced[id] = 0;  // the declarations go
    }
    if (!clocks.empty()) {
      // cl_khr_kernel_clock: clock_read_*() and clock_read_hilo_*() are OpReadClockKHR of
      // their scope, with a ulong or uint2 result (the call's own type).
      uint32_t uint_type = importer_.intern(ir::Instruction(Op::OpTypeInt, 0, 0, {32, 0}));
      for (ir::Function& f : m_.functions)
        for (ir::Block& b : f.blocks)
          for (ir::Instruction& i : b.instructions)
            if (i.opcode == Op::OpFunctionCall && clocks.count(i.operands[0])) {
              uint32_t scope = importer_.intern(ir::Instruction(Op::OpConstant, uint_type, 0, {clocks[i.operands[0]]}));
              i = ir::Instruction(Op::OpReadClockKHR, i.type_id, i.result_id, {scope});
            }
      reindex();
      declare_extension("SPV_KHR_shader_clock", spv::Capability::ShaderClockKHR);
      changed_ = true;
      for (const auto& [id, scope] : clocks) replaced[id] = 0;  // the declarations go
    }
    if (replaced.empty()) return true;
    std::unordered_set<uint32_t> gone;  // the declarations and their parameters
    for (const ir::Function& f : m_.functions)
      if (replaced.count(f.id())) {
        gone.insert(f.id());
        for (const auto& p : f.parameters) gone.insert(p.result_id);
      }
    for (ir::Function& f : m_.functions)
      for (ir::Block& b : f.blocks)
        for (ir::Instruction& i : b.instructions)
          if (i.opcode == Op::OpFunctionCall && replaced.count(i.operands[0]) && replaced[i.operands[0]])
            i.operands[0] = replaced[i.operands[0]];
    auto targets_gone = [&](const ir::Instruction& i) { return !i.operands.empty() && gone.count(i.operands[0]); };
    m_.functions.erase(std::remove_if(m_.functions.begin(), m_.functions.end(),
                                      [&](const ir::Function& f) { return gone.count(f.id()) > 0; }),
                       m_.functions.end());
    m_.annotations.erase(std::remove_if(m_.annotations.begin(), m_.annotations.end(), targets_gone),
                         m_.annotations.end());
    m_.debug.erase(std::remove_if(m_.debug.begin(), m_.debug.end(),
                                  [&](const ir::Instruction& i) {
                                    return (i.opcode == Op::OpName || i.opcode == Op::OpMemberName) &&
                                           targets_gone(i);
                                  }),
                   m_.debug.end());
    reindex();
    changed_ = true;
    return true;
  }

  const ir::Instruction* def(uint32_t id) {
    auto it = defs_.find(id);
    return it == defs_.end() ? nullptr : it->second;
  }
  uint32_t type_of(uint32_t value) {
    auto it = value_types_.find(value);
    if (it != value_types_.end()) return it->second;
    const ir::Instruction* d = def(value);
    return d ? d->type_id : 0;
  }
  // Component type and count of |type| (count 1 for a scalar).
  std::pair<uint32_t, uint32_t> split(uint32_t type) {
    const ir::Instruction* t = def(type);
    if (t && t->opcode == Op::OpTypeVector) return {t->operands[0], t->operands[1]};
    return {type, 1};
  }
  std::string scalar_code(uint32_t type, char kind) {
    const ir::Instruction* t = def(type);
    if (!t) return "?";
    uint32_t w = t->operands[0];
    if (t->opcode == Op::OpTypeFloat) return w == 64 ? "d" : w == 16 ? "Dh" : "f";
    if (t->opcode != Op::OpTypeInt) return "?";
    bool u = kind == 'U';
    switch (w) {
      case 8: return u ? "h" : "c";
      case 16: return u ? "t" : "s";
      case 64: return u ? "m" : "l";
      default: return u ? "j" : "i";
    }
  }
  std::string mangle(const Builtin& b, uint32_t gentype) {
    auto [elem, count] = split(gentype);
    std::string out = "_Z" + std::to_string(std::strlen(b.name)) + b.name;
    bool vector_seen = false;
    for (const char* s = b.signature; *s; ++s) {
      switch (*s) {
        case 'F': out += scalar_code(elem, 'F'); break;
        case 'I': case 'U': out += scalar_code(elem, *s); break;
        case 'i': out += "i"; break;
        case 'P': out += "P"; break;
        case 'G':
          if (count == 1) out += scalar_code(elem, 'F');
          else if (vector_seen) out += "S_";
          else out += "Dv" + std::to_string(count) + "_" + scalar_code(elem, 'F');
          vector_seen = vector_seen || count > 1;
          break;
      }
    }
    return out;
  }

  uint32_t import(const std::string& name) {
    std::string error;
    const Libraries& libs = libraries();
    if (!libs.libclc || !libs.polyfills) {
      ctx_.log += "error: " + libs.error + "\n";
      return 0;
    }
    uint32_t id = importer_.function(*libs.polyfills, name, &error);
    if (!id && error.empty()) id = importer_.function(*libs.libclc, name, &error);
    if (!id) {
      ctx_.log += error.empty() ? "error: no library implementation of " + name + "\n"
                                : "error: " + error + "\n";
      return 0;
    }
    reindex();  // the import grew m_.globals: pointers into it moved
    return id;
  }
  void reindex() {
    defs_.clear();
    for (const auto& g : m_.globals)
      if (g.result_id) defs_[g.result_id] = &g;
  }
  const ir::Function* function_by_id(uint32_t id) {
    for (const auto& f : m_.functions)
      if (f.id() == id) return &f;
    return nullptr;
  }

  bool rewrite(size_t fi) {
    value_types_.clear();
    for (const auto& p : m_.functions[fi].parameters) value_types_[p.result_id] = p.type_id;
    for (const auto& b : m_.functions[fi].blocks)
      for (const auto& i : b.instructions)
        if (i.result_id && i.type_id) value_types_[i.result_id] = i.type_id;
    for (size_t bi = 0; bi < m_.functions[fi].blocks.size(); ++bi) {
      std::vector<ir::Instruction> out;
      // A copy: imports append to m_.functions, which may move every block.
      const std::vector<ir::Instruction> insts = m_.functions[fi].blocks[bi].instructions;
      bool touched = false;
      std::vector<ir::Instruction> entry_vars;
      bool ok = true;
      bool loose_fma = fi >= user_functions_ && !exact_fma_functions_.count(m_.functions[fi].id());
      // Library calls; everything else is kept for lower-to-shader.
      auto process = [&](ir::Instruction i) {
        const Builtin* b = i.opcode == Op::OpExtInst && i.operands[0] == opencl_
                               ? find_builtin(i.operands[1])
                               : nullptr;
        if (b && !wanted(*b, scalar_code(split(i.type_id).first, 'F'), ctx_.caps, loose_fma))
          b = nullptr;
        if (!b) {
          out.push_back(std::move(i));
          return;
        }
        touched = true;
        if (b->op == cl::Ldexp) i.operands[3] = clamp_exponent(i.operands[3], &out);
        ok = ok && expand(i, *b, &out, &entry_vars);
      };
      // A built-in that goes through double (after any per-component split) becomes its
      // conversions and the double call, each then processed.
      auto via_double = [&](const ir::Instruction& i) {
        std::vector<ir::Instruction> parts;
        if (i.opcode == Op::OpExtInst && i.operands[0] == opencl_ && through_double(i, &parts)) {
          touched = true;
          // The fix-ups around a wide call are component-wise instructions of their own.
          for (ir::Instruction& p : parts) {
            std::vector<ir::Instruction> components;
            if (p.opcode == Op::OpExtInst && split_vector_op(p, &components, loose_fma))
              for (ir::Instruction& c : components) process(std::move(c));
            else
              process(std::move(p));
          }
        } else {
          process(i);
        }
      };
      for (size_t ii = 0; ii < insts.size() && ok; ++ii) {
        const ir::Instruction& i = insts[ii];
        std::vector<ir::Instruction> parts;
        if ((i.opcode == Op::OpExtInst && i.operands[0] == opencl_ && split_vector_op(i, &parts, loose_fma)) ||
            split_wide_relational(i, &parts)) {
          touched = true;
          for (ir::Instruction& p : parts) via_double(p);
        } else {
          via_double(i);
        }
      }
      if (!ok) return false;
      // Temporaries go at the top of the entry block (may be this very block).
      auto& entry = bi == 0 ? out : m_.functions[fi].blocks[0].instructions;
      entry.insert(entry.begin(), entry_vars.begin(), entry_vars.end());
      if (touched) {
        m_.functions[fi].blocks[bi].instructions = std::move(out);
        changed_ = true;
      }
    }
    return true;
  }

  uint32_t constant_of(uint32_t type, uint64_t v) {
    const ir::Instruction* t = def(type);
    std::vector<uint32_t> words = {uint32_t(v)};
    if (t && t->operands[0] == 64) words.push_back(uint32_t(v >> 32));
    uint32_t id = importer_.intern(ir::Instruction(Op::OpConstant, type, 0, words));
    reindex();
    return id;
  }
  // Adds SPIR-V extension |name| and |capability| to the module unless it declares them.
  void declare_extension(const char* name, spv::Capability capability) {
    if (std::any_of(m_.extensions.begin(), m_.extensions.end(), [&](const ir::Instruction& e) {
          return ir::decode_string(e.operands, 0) == name;
        }))
      return;
    ir::Instruction e(Op::OpExtension, 0, 0, {});
    ir::append_string(&e.operands, name);
    m_.extensions.push_back(e);
    m_.capabilities.emplace_back(Op::OpCapability, 0, 0, std::vector<uint32_t>{uint32_t(capability)});
  }

  // ldexp's n clamped to ±2200, beyond which every double scales to zero or infinity alike:
  // libclc's double ldexp adds n to the exponent in 32-bit arithmetic, which wraps for n near
  // INT_MAX (CTS bruteforce: ldexp(x, 2147483527) gave 0).
  uint32_t clamp_exponent(uint32_t n, std::vector<ir::Instruction>* out) {
    uint32_t type = type_of(n);
    auto [elem, count] = split(type);
    uint32_t lo = constant_of(elem, uint32_t(-2200)), hi = constant_of(elem, 2200);
    if (count > 1) {
      lo = importer_.intern(ir::Instruction(Op::OpConstantComposite, type, 0, std::vector<uint32_t>(count, lo)));
      hi = importer_.intern(ir::Instruction(Op::OpConstantComposite, type, 0, std::vector<uint32_t>(count, hi)));
      reindex();
    }
    return emit(out, Op::OpExtInst, type, {opencl_, cl::SClamp, n, lo, hi});
  }
  uint32_t bool_type() {
    uint32_t id = importer_.intern(ir::Instruction(Op::OpTypeBool, 0, 0));
    reindex();
    return id;
  }
  uint32_t width_of(uint32_t scalar_type) {
    const ir::Instruction* t = def(scalar_type);
    return t ? t->operands[0] : 32;
  }

  // Float functions whose libclc float version misses the bound (tests/math: erfc by 63 ulp
  // near 8, tgamma near its overflow and poles, rootn at FLT_MIN, lgamma infinite for tiny
  // negative x) take libclc's double version where the device has doubles: its error is far
  // below a float ulp (0.5 ulp measured after rounding).
  bool through_double(const ir::Instruction& i, std::vector<ir::Instruction>* out) {
    uint32_t n = i.operands[1];
    if (!ctx_.caps.float64 || (n != cl::Erfc && n != cl::Tgamma && n != cl::Rootn && n != cl::Lgamma))
      return false;
    auto [elem, count] = split(i.type_id);
    if (scalar_code(elem, 'F') != "f") return false;
    uint32_t d = importer_.intern(ir::Instruction(Op::OpTypeFloat, 0, 0, {64}));
    uint32_t dt = count == 1 ? d : importer_.intern(ir::Instruction(Op::OpTypeVector, 0, 0, {d, count}));
    reindex();
    ensure_capability(spv::Capability::Float64);
    std::vector<uint32_t> ops = {i.operands[0], n,
                                 emit(out, Op::OpFConvert, dt, {i.operands[2]})};
    ops.insert(ops.end(), i.operands.begin() + 3, i.operands.end());  // rootn's int stays
    uint32_t r = emit(out, Op::OpExtInst, dt, ops);
    if (n != cl::Tgamma) {
      emit(out, Op::OpFConvert, i.type_id, {r}, i.result_id);
      return true;
    }
    // libclc's double tgamma also gives +inf at ±0 and overflows below about -170: tgamma is
    // ±inf for zero and float denormals, and below -42 it is a zero of sign
    // (-1)^(floor(x) odd), or NaN at the poles, in float.
    uint32_t f = emit(out, Op::OpFConvert, i.type_id, {r});
    uint32_t x = i.operands[2];
    uint32_t bt = bool_type();
    if (count > 1) bt = importer_.intern(ir::Instruction(Op::OpTypeVector, 0, 0, {bt, count}));
    reindex();
    // The bindings are captured by copy, by name: clang 15 (the fuzz build) cannot capture
    // structured bindings otherwise.
    auto k = [&, elem = elem, count = count](uint32_t bits) {
      uint32_t c = constant_of(elem, bits);
      if (count == 1) return c;
      uint32_t v = importer_.intern(ir::Instruction(Op::OpConstantComposite, i.type_id, 0,
                                                    std::vector<uint32_t>(count, c)));
      reindex();
      return v;
    };
    auto ext = [&](uint32_t op, std::vector<uint32_t> args) {
      std::vector<uint32_t> ops = {opencl_, op};
      ops.insert(ops.end(), args.begin(), args.end());
      return emit(out, Op::OpExtInst, i.type_id, ops);
    };
    uint32_t tiny = emit(out, Op::OpFOrdLessThan, bt, {ext(cl::Fabs, {x}), k(0x00800000)});
    f = emit(out, Op::OpSelect, i.type_id, {tiny, ext(cl::Copysign, {k(0x7f800000), x}), f});
    uint32_t fl = ext(cl::Floor, {x});
    uint32_t pole = emit(out, Op::OpFOrdEqual, bt, {x, fl});
    uint32_t half = emit(out, Op::OpFMul, i.type_id, {fl, k(0x3f000000)});
    uint32_t odd = emit(out, Op::OpFUnordNotEqual, bt, {half, ext(cl::Floor, {half})});
    uint32_t zero = emit(out, Op::OpSelect, i.type_id, {odd, k(0x80000000), k(0)});
    zero = emit(out, Op::OpSelect, i.type_id, {pole, k(0x7fc00000), zero});
    uint32_t far = emit(out, Op::OpFOrdLessThan, bt, {x, k(0xc2280000)});  // -42
    emit(out, Op::OpSelect, i.type_id, {far, zero, f}, i.result_id);
    return true;
  }
  void ensure_capability(spv::Capability c) {
    for (const auto& cap : m_.capabilities)
      if (spv::Capability(cap.operands[0]) == c) return;
    m_.capabilities.emplace_back(Op::OpCapability, 0, 0, std::vector<uint32_t>{uint32_t(c)});
  }

  // Kernel-only relational instructions (isordered, isfinite, signbit, ...) on 8- and
  // 16-component vectors: per component here, so lower-to-shader sees scalars.
  bool split_wide_relational(const ir::Instruction& i, std::vector<ir::Instruction>* out) {
    switch (i.opcode) {
      case Op::OpOrdered: case Op::OpUnordered: case Op::OpIsFinite: case Op::OpIsNormal:
      case Op::OpSignBitSet: case Op::OpLessOrGreater: break;
      default: return false;
    }
    auto [elem, count] = split(i.type_id);
    if (count < 8) return false;
    std::vector<uint32_t> parts;
    for (uint32_t k = 0; k < count; ++k) {
      std::vector<uint32_t> ops;
      for (uint32_t a : i.operands)
        ops.push_back(emit(out, Op::OpCompositeExtract, split(type_of(a)).first, {a, k}));
      parts.push_back(emit(out, i.opcode, elem, ops));
    }
    emit(out, Op::OpCompositeConstruct, i.type_id, parts, i.result_id);
    return true;
  }

  // shuffle/shuffle2 (any width) and component-wise built-ins on 8- and 16-component vectors
  // become per-component instructions here, in the Kernel module, where each scalar
  // built-in then takes its ordinary path (library call or lower-to-shader).
  bool split_vector_op(const ir::Instruction& i, std::vector<ir::Instruction>* out, bool loose_fma) {
    uint32_t n = i.operands[1];
    std::vector<uint32_t> args(i.operands.begin() + 2, i.operands.end());
    auto [elem, count] = split(i.type_id);
    if (n == cl::Shuffle || n == cl::Shuffle2) {
      // result[k] = x[mask[k] % n] (shuffle2: of the 2n components of x then y).
      bool two = n == cl::Shuffle2;
      uint32_t x = args[0], y = two ? args[1] : 0, mask = args[two ? 2 : 1];
      auto [in_elem, in_count] = split(type_of(x));
      auto [mask_elem, mask_count] = split(type_of(mask));
      std::vector<uint32_t> parts;
      for (uint32_t k = 0; k < count; ++k) {
        uint32_t m = emit(out, Op::OpCompositeExtract, mask_elem, {mask, k});
        uint32_t idx = emit(out, Op::OpBitwiseAnd, mask_elem, {m, constant_of(mask_elem, (two ? 2 : 1) * in_count - 1)});
        if (!two) {
          parts.push_back(emit(out, Op::OpVectorExtractDynamic, in_elem, {x, idx}));
          continue;
        }
        uint32_t in_x = emit(out, Op::OpULessThan, bool_type(), {idx, constant_of(mask_elem, in_count)});
        uint32_t low = emit(out, Op::OpBitwiseAnd, mask_elem, {idx, constant_of(mask_elem, in_count - 1)});
        uint32_t from_x = emit(out, Op::OpVectorExtractDynamic, in_elem, {x, low});
        uint32_t from_y = emit(out, Op::OpVectorExtractDynamic, in_elem, {y, low});
        parts.push_back(emit(out, Op::OpSelect, in_elem, {in_x, from_x, from_y}));
      }
      emit(out, Op::OpCompositeConstruct, i.type_id, parts, i.result_id);
      return true;
    }
    switch (n) {  // not component-wise, or handled whole later
      case cl::Vloadn: case cl::Vstoren: case cl::Vload_halfn: case cl::Vloada_halfn:
      case cl::Vstore_halfn: case cl::Vstore_halfn_r: case cl::Vstorea_halfn:
      case cl::Vstorea_halfn_r: case cl::Printf: case cl::Prefetch: case cl::Vload_half:
      case cl::Vstore_half: case cl::Vstore_half_r:
        return false;
      default: break;
    }
    bool wide = count >= 8;
    for (uint32_t a : args) {
      const ir::Instruction* t = def(type_of(a));
      if (t && t->opcode == Op::OpTypePointer) return false;  // expand() handles these
      wide = wide || split(type_of(a)).second >= 8;
    }
    if (!wide) return false;
    // A library function takes the whole vector: expand() loops over its components.
    if (const Builtin* b = find_builtin(n))
      if (wanted(*b, scalar_code(elem, 'F'), ctx_.caps, loose_fma) && b->signature[0] != 'G' &&
          count >= kLoopedWidth && n != cl::Ldexp)  // ldexp's clamp would stay wide
        return false;
    uint32_t width = 0;
    for (uint32_t a : args) width = std::max(width, split(type_of(a)).second);
    width = std::max(width, count);
    std::vector<uint32_t> parts;
    for (uint32_t k = 0; k < width; ++k) {
      std::vector<uint32_t> scalars;
      for (uint32_t a : args) {
        auto [a_elem, a_count] = split(type_of(a));
        scalars.push_back(a_count == 1 ? a : emit(out, Op::OpCompositeExtract, a_elem, {a, k}));
      }
      if (n == cl::Select) {
        // Vector select takes each component's most significant bit; a scalar select would
        // test for non-zero, so the comparison is made here.
        uint32_t c_elem = split(type_of(args[2])).first;
        uint32_t msb = emit(out, Op::OpSLessThan, bool_type(), {scalars[2], constant_of(c_elem, 0)});
        parts.push_back(emit(out, Op::OpSelect, elem, {msb, scalars[1], scalars[0]}));
        continue;
      }
      std::vector<uint32_t> ops = {i.operands[0], n};
      ops.insert(ops.end(), scalars.begin(), scalars.end());
      parts.push_back(emit(out, Op::OpExtInst, elem, ops));
    }
    if (count == 1) return false;  // scalar results of wide arguments (none in OpenCL.std)
    emit(out, Op::OpCompositeConstruct, i.type_id, parts, i.result_id);
    return true;
  }

  uint32_t emit(std::vector<ir::Instruction>* out, Op op, uint32_t type, std::vector<uint32_t> ops,
                uint32_t result = 0) {
    uint32_t id = result ? result : m_.take_id();
    out->emplace_back(op, type, id, std::move(ops));
    value_types_[id] = type;
    return id;
  }

  // Special values libclc gets wrong, set as OpenCL C 7.5.1 (edge case behaviour) requires;
  // found by tests/math against MPFR. Returns the corrected result.
  uint32_t fix_edges(uint32_t op, uint32_t r, const std::vector<uint32_t>& args, uint32_t type,
                     std::vector<ir::Instruction>* out) {
    const uint32_t width = width_of(type);
    if (width != 32 && width != 64) return r;
    // A float constant of the result's width, from its float (32-bit) bits.
    auto k = [&](uint32_t float_bits) {
      if (width == 32) return constant_of(type, float_bits);
      float f;
      std::memcpy(&f, &float_bits, 4);
      double d = f;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return constant_of(type, bits);
    };
    uint32_t x = args.empty() ? 0 : args[0];
    uint32_t b = bool_type();
    uint32_t zero = constant_of(type, 0);
    if (width == 64) {
      // Double versions that lose the sign of a zero argument (f(±0) = ±0), or turn ldexp's
      // NaN into infinity.
      if (op == cl::Sin || op == cl::Tan || op == cl::Atan || op == cl::Atanpi || op == cl::Erf ||
          op == cl::Expm1 || op == cl::Sincos) {
        uint32_t is_zero = emit(out, Op::OpFOrdEqual, b, {x, zero});
        return emit(out, Op::OpSelect, type, {is_zero, x, r});
      }
      // acospi(NaN) = NaN: NVIDIA gave 0.5 for a signalling NaN (CTS bruteforce on the H100).
      if (op == cl::Ldexp || op == cl::Acospi)
        return emit(out, Op::OpSelect, type, {emit(out, Op::OpIsNan, b, {x}), x, r});
    }
    auto ext = [&](uint32_t n, std::vector<uint32_t> xs) {
      std::vector<uint32_t> ops = {opencl_, n};
      ops.insert(ops.end(), xs.begin(), xs.end());
      return emit(out, Op::OpExtInst, type, ops);
    };
    uint32_t r_zero = 0;
    auto when_zero = [&](uint32_t value) {
      if (!r_zero) r_zero = emit(out, Op::OpFOrdEqual, b, {r, zero});
      return emit(out, Op::OpSelect, type, {r_zero, value, r});
    };
    switch (op) {
      case cl::Sinpi:  // sinpi(n) = +0, sinpi(-n) = -0, sinpi(±0) = ±0
      case cl::Remainder:  // a zero remainder has the sign of x
        return when_zero(ext(cl::Copysign, {zero, x}));
      case cl::Cospi:  // cospi(n + 0.5) = +0
        return when_zero(zero);
      case cl::Tanpi: {
        // tanpi(n) = copysign(0, n) for even n, -copysign(0, n) for odd n.
        uint32_t half = emit(out, Op::OpFMul, type, {x, k(0x3f000000)});
        uint32_t odd = emit(out, Op::OpFUnordNotEqual, b, {half, ext(cl::Rint, {half})});
        uint32_t signed_x = emit(out, Op::OpSelect, type, {odd, emit(out, Op::OpFNegate, type, {x}), x});
        return when_zero(ext(cl::Copysign, {zero, signed_x}));
      }
      case cl::Tgamma: {
        if (width != 32) return r;  // double: polyfills/tgamma64.cl
        if (width == 32) {
          uint32_t tiny_x = emit(out, Op::OpFOrdLessThan, b, {ext(cl::Fabs, {x}), k(0x00800000)});
          r = emit(out, Op::OpSelect, type, {tiny_x, ext(cl::Copysign, {k(0x7f800000), x}), r});
        }
        uint32_t fl = ext(cl::Floor, {x});
        uint32_t pole = emit(out, Op::OpFOrdEqual, b, {x, fl});
        uint32_t half = emit(out, Op::OpFMul, type, {fl, k(0x3f000000)});
        uint32_t odd = emit(out, Op::OpFUnordNotEqual, b, {half, ext(cl::Floor, {half})});
        uint32_t tiny = emit(out, Op::OpSelect, type, {odd, k(0x80000000), zero});
        tiny = emit(out, Op::OpSelect, type, {pole, k(0x7fc00000), tiny});
        uint32_t far = emit(out, Op::OpFOrdLessThan, b,
                            {x, k(width == 32 ? 0xc2082000 /*-34.03*/ : 0xc32a8000 /*-170.5*/)});
        return emit(out, Op::OpSelect, type, {far, tiny, r});
      }
      case cl::Lgamma: {  // lgamma(±inf) = +inf
        uint32_t inf = emit(out, Op::OpIsInf, b, {x});
        return emit(out, Op::OpSelect, type, {inf, k(0x7f800000), r});
      }
      case cl::Fract: {
        // fract(±inf) = ±0, and "fract(-0, iptr) returns -0" (libclc's x - floor(x) is +0).
        uint32_t inf = emit(out, Op::OpIsInf, b, {x});
        r = emit(out, Op::OpSelect, type, {inf, ext(cl::Copysign, {zero, x}), r});
        uint32_t is_zero = emit(out, Op::OpFOrdEqual, b, {x, zero});
        return emit(out, Op::OpSelect, type, {is_zero, x, r});
      }
      default:
        return r;
    }
  }

  // A function that applies library function |fid| to each component of 8- and 16-component
  // vectors in a loop: one call site instead of one per component. Drivers inline every call,
  // and 16 inlined copies of a large function (double cos, tgamma) took lavapipe about a
  // minute to compile. Made once per callee and signature.
  // Pointer arguments (sincos's cosine, frexp's exponent) are gathered the same way and stored
  // through the caller's pointer once, after the loop.
  uint32_t component_loop(uint32_t fid, uint32_t op, uint32_t result_type,
                          const std::vector<uint32_t>& args, const std::vector<bool>& is_pointer) {
    std::vector<uint32_t> arg_types;
    for (uint32_t a : args) arg_types.push_back(type_of(a));
    auto key = std::make_tuple(fid, result_type, arg_types);
    auto found = component_loops_.find(key);
    if (found != component_loops_.end()) return found->second;
    auto [res_elem, count] = split(result_type);
    uint32_t u32 = importer_.intern(ir::Instruction(Op::OpTypeInt, 0, 0, {32, 0}));
    std::vector<uint32_t> signature = {result_type};
    signature.insert(signature.end(), arg_types.begin(), arg_types.end());
    uint32_t fn_type = importer_.intern(ir::Instruction(Op::OpTypeFunction, 0, 0, signature));
    uint32_t undef = importer_.intern(ir::Instruction(Op::OpUndef, result_type, 0, {}));
    reindex();
    uint32_t boolean = bool_type(), zero = constant_of(u32, 0), one = constant_of(u32, 1),
             n = constant_of(u32, count);

    ir::Function f;
    uint32_t id = m_.take_id();
    f.definition = ir::Instruction(Op::OpFunction, result_type, id, {0, fn_type});
    std::vector<uint32_t> params;
    for (uint32_t t : arg_types) {
      params.push_back(m_.take_id());
      f.parameters.emplace_back(Op::OpFunctionParameter, t, params.back());
    }
    uint32_t entry = m_.take_id(), head = m_.take_id(), body = m_.take_id(), exit = m_.take_id();
    uint32_t k = m_.take_id(), acc = m_.take_id(), k_next = m_.take_id(), acc_next = m_.take_id();
    const ir::Function* callee = function_by_id(fid);
    std::vector<ir::Instruction> e, h, b, x;
    h.emplace_back(Op::OpPhi, u32, k, std::vector<uint32_t>{zero, entry, k_next, body});
    h.emplace_back(Op::OpPhi, result_type, acc, std::vector<uint32_t>{undef, entry, acc_next, body});
    std::vector<uint32_t> call = {fid}, scalars;
    struct Gathered { uint32_t temp, accumulator, next, vector; };  // one per pointer argument
    std::vector<Gathered> gathered;
    for (size_t a = 0; a < params.size(); ++a) {
      if (is_pointer[a]) {
        uint32_t temp = m_.take_id(), gather = m_.take_id(), gather_next = m_.take_id();
        uint32_t temp_type = callee->parameters[a].type_id;
        uint32_t vector = def(arg_types[a])->operands[1];
        uint32_t none = importer_.intern(ir::Instruction(Op::OpUndef, vector, 0, {}));
        reindex();
        e.emplace_back(Op::OpVariable, temp_type, temp,
                       std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
        h.emplace_back(Op::OpPhi, vector, gather, std::vector<uint32_t>{none, entry, gather_next, body});
        gathered.push_back({temp, gather, gather_next, vector});
        call.push_back(temp);
        scalars.push_back(temp);
        x.emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{params[a], gather});
        continue;
      }
      auto [elem, a_count] = split(arg_types[a]);
      call.push_back(a_count == 1 ? params[a] : emit(&b, Op::OpVectorExtractDynamic, elem, {params[a], k}));
      scalars.push_back(call.back());
    }
    uint32_t more = emit(&h, Op::OpULessThan, boolean, {k, n});
    h.emplace_back(Op::OpBranchConditional, 0, 0, std::vector<uint32_t>{more, body, exit});
    uint32_t r = fix_edges(op, emit(&b, Op::OpFunctionCall, res_elem, call), scalars, res_elem, &b);
    emit(&b, Op::OpVectorInsertDynamic, result_type, {acc, r, k}, acc_next);
    for (const Gathered& g : gathered) {
      uint32_t part = emit(&b, Op::OpLoad, split(g.vector).first, {g.temp});
      emit(&b, Op::OpVectorInsertDynamic, g.vector, {g.accumulator, part, k}, g.next);
    }
    emit(&b, Op::OpIAdd, u32, {k, one}, k_next);
    b.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{head});
    e.emplace_back(Op::OpBranch, 0, 0, std::vector<uint32_t>{head});
    x.emplace_back(Op::OpReturnValue, 0, 0, std::vector<uint32_t>{acc});
    f.blocks.push_back({entry, std::move(e)});
    f.blocks.push_back({head, std::move(h)});
    f.blocks.push_back({body, std::move(b)});
    f.blocks.push_back({exit, std::move(x)});
    m_.functions.push_back(std::move(f));
    component_loops_[key] = id;
    return id;
  }

  bool expand(const ir::Instruction& i, const Builtin& b, std::vector<ir::Instruction>* out,
              std::vector<ir::Instruction>* entry_vars) {
    std::vector<uint32_t> args(i.operands.begin() + 2, i.operands.end());
    bool scalar_result = b.op == cl::Ilogb || b.op == cl::Length || b.op == cl::Distance ||
                         b.op == cl::Fast_length || b.op == cl::Fast_distance;
    uint32_t gentype = scalar_result ? type_of(args[0]) : i.type_id;
    std::string name = mangle(b, gentype);
    size_t before = m_.functions.size();
    uint32_t fid = import(name);
    if (needs_exact_fma(b.op)) {
      for (size_t f = before; f < m_.functions.size(); ++f) exact_fma_functions_.insert(m_.functions[f].id());
      // Only the reductions of sin and cos need exact products: their shared polynomial
      // (Horner steps below a quarter of the result) is within the bounds with the device's
      // Fma, and its 14 exact emulations made up most of PyOpenCL's Bessel shaders.
      if (const Libraries& libs = libraries(); libs.libclc)
        exact_fma_functions_.erase(importer_.imported(*libs.libclc, "__clc_sincos_piby4"));
    }
    if (!fid) {
      ctx_.log += "  (needed for OpenCL built-in " + std::string(b.name) + ")\n";
      return false;
    }
    const ir::Function* callee = function_by_id(fid);
    bool whole = b.signature[0] == 'G';
    auto [res_elem, res_count] = split(i.type_id);
    uint32_t count = whole ? 1 : split(gentype).second;
    // Positions of pointer arguments: the letter after a 'P'.
    std::vector<bool> is_pointer(args.size(), false);
    size_t a = 0;
    for (const char* s = b.signature; *s && a < args.size(); ++s) {
      if (*s == 'P') { is_pointer[a] = true; continue; }
      ++a;
    }
    if (!whole && count >= kLoopedWidth && res_count == count) {
      std::vector<uint32_t> ops = {component_loop(fid, b.op, i.type_id, args, is_pointer)};
      ops.insert(ops.end(), args.begin(), args.end());
      emit(out, Op::OpFunctionCall, i.type_id, ops, i.result_id);
      return true;
    }
    std::vector<uint32_t> results;
    std::vector<std::vector<uint32_t>> stored(args.size());
    for (uint32_t k = 0; k < count; ++k) {
      std::vector<uint32_t> call_args;
      std::vector<std::pair<size_t, uint32_t>> temps;
      for (size_t n = 0; n < args.size(); ++n) {
        if (is_pointer[n]) {
          uint32_t ptr_type = callee->parameters[n].type_id;
          uint32_t var = m_.take_id();
          entry_vars->emplace_back(Op::OpVariable, ptr_type, var,
                                   std::vector<uint32_t>{uint32_t(spv::StorageClass::Function)});
          call_args.push_back(var);
          temps.emplace_back(n, var);
          continue;
        }
        auto [elem, n_count] = split(type_of(args[n]));
        call_args.push_back(whole || n_count == 1
                                ? args[n]
                                : emit(out, Op::OpCompositeExtract, elem, {args[n], k}));
      }
      uint32_t call_type = whole ? i.type_id : res_elem;
      std::vector<uint32_t> ops = {fid};
      ops.insert(ops.end(), call_args.begin(), call_args.end());
      bool direct = whole || res_count == 1;
      uint32_t call = emit(out, Op::OpFunctionCall, call_type, ops);
      uint32_t fixed = whole ? call : fix_edges(b.op, call, call_args, call_type, out);
      results.push_back(direct ? emit(out, Op::OpCopyObject, call_type, {fixed}, i.result_id) : fixed);
      for (auto [n, var] : temps) {
        const ir::Instruction* pt = def(callee->parameters[n].type_id);
        stored[n].push_back(emit(out, Op::OpLoad, pt->operands[1], {var}));
      }
    }
    for (size_t n = 0; n < args.size(); ++n) {
      if (!is_pointer[n]) continue;
      const ir::Instruction* user_ptr = def(type_of(args[n]));
      uint32_t pointee = user_ptr->operands[1];
      uint32_t value = stored[n].size() == 1
                           ? stored[n][0]
                           : emit(out, Op::OpCompositeConstruct, pointee, stored[n]);
      out->emplace_back(Op::OpStore, 0, 0, std::vector<uint32_t>{args[n], value});
    }
    if (!whole && res_count > 1) emit(out, Op::OpCompositeConstruct, i.type_id, results, i.result_id);
    return true;
  }

  ir::Module& m_;
  PassContext& ctx_;
  ir::Importer importer_;
  uint32_t opencl_ = 0;
  bool changed_ = false;
  size_t user_functions_ = 0;  // m_.functions from here on were imported from a library
  std::unordered_set<uint32_t> exact_fma_functions_;  // imported for a needs_exact_fma built-in
  // Vectors at least this wide call library functions through a loop (component_loop).
  static constexpr uint32_t kLoopedWidth = 8;
  std::map<std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>, uint32_t> component_loops_;
  std::unordered_map<uint32_t, const ir::Instruction*> defs_;
  std::unordered_map<uint32_t, uint32_t> value_types_;
};

class LinkBuiltinsPass : public Pass {
 public:
  const char* name() const override { return "link-builtins"; }
  PassStatus Process(ir::Module& module, PassContext& context) override {
    return Linker(module, context).run();
  }
};

}  // namespace

std::unique_ptr<Pass> create_link_builtins_pass() { return std::make_unique<LinkBuiltinsPass>(); }

void preload_builtin_libraries() {
  // Joined when the process exits (a static's destructor), so the load never runs on while
  // the statics it uses are destroyed.
  struct Loader {
    std::thread thread;
    ~Loader() {
      if (thread.joinable()) thread.join();
    }
  };
  static std::once_flag once;
  std::call_once(once, [] {
    static Loader loader;
    try {
      loader.thread = std::thread([] {
        try {
          (void)libraries();
        } catch (...) {
          // (No memory now: the first build loads them itself.)
        }
      });
    } catch (...) {
      // No thread: the first build loads them.
    }
  });
}

}  // namespace vkcl::k2s

#include "compiler/compiler.h"

#include "compiler/cache.h"
#include "compiler/legalize.h"
#include "compiler/pch.h"
#include "compiler/unroll.h"
#include "vkcl/common/host_allocation.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/SourceManager.h>
#include <clang/CodeGen/BackendUtil.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

#include <algorithm>
#include <mutex>
#include <sstream>

namespace vkcl::compiler {

namespace {

// A build option as written: |quoted| when double quotes were part of it, so `-I""` (an
// empty directory, QGIS's qgis_process passes one) is a flag with its value, not a bare -I.
struct Word {
  std::string text;
  bool quoted = false;
};

// Splits build options on whitespace; double quotes group (as in -D "NAME=a b").
std::vector<Word> split_options(const std::string& options) {
  std::vector<Word> out;
  Word current;
  bool quoting = false, has = false;
  for (char c : options) {
    if (c == '"') {
      quoting = !quoting;
      has = current.quoted = true;
      continue;
    }
    if (!quoting && (c == ' ' || c == '\t' || c == '\n')) {
      if (has) out.push_back(current);
      current = Word{};
      has = false;
      continue;
    }
    current.text.push_back(c);
    has = true;
  }
  if (has) out.push_back(current);
  return out;
}

struct Translation {
  std::vector<std::string> args;  // cc1 arguments
  std::vector<std::string> macros;  // the application's -D and -I arguments, in order
  std::vector<std::string> macro_names;  // the names its -D arguments define
  std::string error;              // set when an option is invalid
  int language_version = 120;
  bool uniform_work_group_size = false;
  bool kernel_arg_info = false;
};

// Maps the application's build options to clang -cc1 arguments.
Translation translate_options(const std::string& options) {
  Translation t;
  bool optimize = true;
  std::vector<Word> opts = split_options(options);
  std::string std_option = "-cl-std=CL1.2";
  for (size_t i = 0; i < opts.size(); ++i) {
    const std::string& o = opts[i].text;
    auto takes_value = [&](const char* flag) {
      std::string value;
      if (o == flag && !opts[i].quoted) {
        if (i + 1 >= opts.size()) { t.error = std::string(flag) + " needs a value"; return true; }
        t.macros.push_back(flag);
        t.macros.push_back(value = opts[++i].text);
      } else if (o.rfind(flag, 0) == 0) {
        value = o.substr(2);
        t.macros.push_back(flag);
        t.macros.push_back(value);
      } else {
        return false;
      }
      if (std::string(flag) == "-D") t.macro_names.push_back(value.substr(0, value.find('=')));
      return true;
    };
    if (takes_value("-D") || takes_value("-I")) continue;
    if (o == "-w" || o == "-Werror" || o == "-cl-mad-enable" || o == "-cl-no-signed-zeros" ||
        o == "-cl-unsafe-math-optimizations" || o == "-cl-finite-math-only" ||
        o == "-cl-fast-relaxed-math" || o == "-cl-single-precision-constant" ||
        o == "-cl-fp32-correctly-rounded-divide-sqrt") {
      t.args.push_back(o);
    } else if (o == "-cl-denorms-are-zero") {
      // clang's front end spells it as a denormal mode; the device does not report
      // CL_FP_DENORM, so flushing is allowed with or without it.
      t.args.push_back("-fdenormal-fp-math-f32=preserve-sign,preserve-sign");
    } else if (o == "-cl-uniform-work-group-size") {
      t.args.push_back(o);
      t.uniform_work_group_size = true;
    } else if (o == "-cl-opt-disable") {
      optimize = false;
    } else if (o == "-cl-kernel-arg-info") {
      t.kernel_arg_info = true;
    } else if (o == "-g" || o == "-cl-strict-aliasing" || o == "-cl-no-subgroup-ifp") {
      // They do not change the code vkcl makes.
    } else if (o.rfind("-cl-std=", 0) == 0) {
      std::string v = o.substr(8);
      if (v == "CL1.0") t.language_version = 100;
      else if (v == "CL1.1") t.language_version = 110;
      else if (v == "CL1.2") t.language_version = 120;
      else if (v == "CL3.0") t.language_version = 300;
      else { t.error = "the device does not support " + o; continue; }
      std_option = o;
    } else {
      t.error = "unknown build option " + o;
    }
  }
  t.args.push_back(std_option);
  t.args.push_back(optimize ? "-O2" : "-O0");
  return t;
}

std::string metadata_string(const llvm::MDNode* md, unsigned i) {
  if (!md || i >= md->getNumOperands()) return "";
  if (auto* s = llvm::dyn_cast_or_null<llvm::MDString>(md->getOperand(i).get()))
    return s->getString().str();
  return "";
}

int64_t metadata_int(const llvm::MDNode* md, unsigned i) {
  if (!md || i >= md->getNumOperands()) return 0;
  if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(md->getOperand(i)))
    return c->getSExtValue();
  return 0;
}

KernelInfo kernel_info(const llvm::Function& f) {
  KernelInfo k;
  k.name = f.getName().str();
  const llvm::MDNode* space = f.getMetadata("kernel_arg_addr_space");
  const llvm::MDNode* access = f.getMetadata("kernel_arg_access_qual");
  const llvm::MDNode* type = f.getMetadata("kernel_arg_type");
  const llvm::MDNode* qual = f.getMetadata("kernel_arg_type_qual");
  const llvm::MDNode* name = f.getMetadata("kernel_arg_name");
  for (unsigned i = 0; i < f.arg_size(); ++i) {
    KernelArgInfo a;
    a.name = metadata_string(name, i);
    a.type_name = metadata_string(type, i);
    switch (metadata_int(space, i)) {
      case 1: a.address_qualifier = CL_KERNEL_ARG_ADDRESS_GLOBAL; break;
      case 2: a.address_qualifier = CL_KERNEL_ARG_ADDRESS_CONSTANT; break;
      case 3: a.address_qualifier = CL_KERNEL_ARG_ADDRESS_LOCAL; break;
      default: a.address_qualifier = CL_KERNEL_ARG_ADDRESS_PRIVATE; break;
    }
    std::string acc = metadata_string(access, i);
    a.access_qualifier = acc == "read_only" ? CL_KERNEL_ARG_ACCESS_READ_ONLY
                         : acc == "write_only" ? CL_KERNEL_ARG_ACCESS_WRITE_ONLY
                         : acc == "read_write" ? CL_KERNEL_ARG_ACCESS_READ_WRITE
                                               : CL_KERNEL_ARG_ACCESS_NONE;
    std::string q = metadata_string(qual, i);
    a.type_qualifier = CL_KERNEL_ARG_TYPE_NONE;
    if (q.find("const") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_CONST;
    if (q.find("restrict") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_RESTRICT;
    if (q.find("volatile") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_VOLATILE;
    if (q.find("pipe") != std::string::npos) a.type_qualifier |= CL_KERNEL_ARG_TYPE_PIPE;
    // __constant arguments are reported const, as the specification's examples do.
    if (a.address_qualifier == CL_KERNEL_ARG_ADDRESS_CONSTANT)
      a.type_qualifier |= CL_KERNEL_ARG_TYPE_CONST;
    k.args.push_back(a);
  }
  auto three = [&](const char* attr) -> std::string {
    const llvm::MDNode* md = f.getMetadata(attr);
    if (!md) return "";
    return std::string(attr) + "(" + std::to_string(metadata_int(md, 0)) + "," +
           std::to_string(metadata_int(md, 1)) + "," + std::to_string(metadata_int(md, 2)) + ")";
  };
  std::string attributes;
  for (const char* attr : {"reqd_work_group_size", "work_group_size_hint"}) {
    std::string a = three(attr);
    if (a.empty()) continue;
    if (!attributes.empty()) attributes += " ";
    attributes += a;
  }
  if (const llvm::MDNode* hint = f.getMetadata("vec_type_hint")) {
    // As declared (the OpenCL C name, e.g. uchar2), from clang's metadata: an undef of the
    // LLVM type, then 1 for signed integers.
    std::string type_name;
    if (auto* v = llvm::mdconst::dyn_extract_or_null<llvm::Constant>(hint->getOperand(0))) {
      llvm::Type* t = v->getType();
      unsigned width = 1;
      if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(t)) {
        width = vt->getNumElements();
        t = vt->getElementType();
      }
      auto* sign = hint->getNumOperands() > 1
                       ? llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(hint->getOperand(1))
                       : nullptr;
      bool is_signed = sign && sign->isOne();
      if (t->isIntegerTy()) {
        const char* names[] = {"char", "short", "int", "long"};
        unsigned bits = t->getIntegerBitWidth();
        unsigned index = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
        type_name = std::string(is_signed ? "" : "u") + names[index];
      } else {
        type_name = t->isHalfTy() ? "half" : t->isDoubleTy() ? "double" : "float";
      }
      if (width > 1) type_name += std::to_string(width);
    }
    if (!attributes.empty()) attributes += " ";
    attributes += "vec_type_hint(" + type_name + ")";
  }
  k.attributes = attributes;
  return k;
}

// Stops LLVM's loop rotation (while (c) {...} into if (c) do {...} while (c)). Vulkan drivers
// are made for loops as shaders write them, tested at the top: on lavapipe a 16-step
// dependent loop took 1.4 times as long rotated. Since single-block-loops and loop-variables
// took away the cost Mesa's first-pass flag puts on loops whose continue target is a block
// of their own, small loops run as fast either way, and CLBlast's SGEMM at N=1024 about 8%
// slower rotated. Loops with constant trip counts still unroll.
// The setting is LLVM's own option, set once per process.
bool keep_loops_top_tested() {
  auto& options = llvm::cl::getRegisteredOptions();
  auto it = options.find("rotation-max-header-size");
  return it != options.end() && !it->second->addOccurrence(0, it->first(), "0");
}

// A C99 inline definition (a function declared `inline`, never `extern` nor without `inline`)
// is not an external definition (C99 6.7.4): clang gives it available_externally linkage,
// drops its body at -O0, and turns it into a declaration after the optimiser where it was not
// inlined. C leaves it to the implementation whether a call uses the inline definition, and
// OpenCL programs (CLBlast on NVIDIA, helpers too large to inline) rely on it being there:
// each becomes a function of this program alone.
void keep_inline_definitions(llvm::Module& module) {
  for (llvm::Function& f : module)
    if (f.hasAvailableExternallyLinkage() && !f.isDeclaration())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
}

// A program built in one step is linked already: only its kernels can be called from outside,
// so its other functions become its own (internal), and those no kernel reaches are dropped
// before the optimiser runs. hashcat's sources hold the helpers of hundreds of hash types;
// kept, its two MD5 kernels came with 12.5 MB of SPIR-V to optimise, translate and validate.
void drop_unreached_functions(llvm::Module& module) {
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL && f.hasExternalLinkage())
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (auto it = module.begin(); it != module.end();) {
      llvm::Function& f = *it++;
      if (f.hasLocalLinkage() && f.use_empty()) {
        f.eraseFromParent();
        dropped = true;
      }
    }
  }
}

// A Vulkan image is a binding, not a value: the translator follows each image parameter to
// the one kernel argument it comes from, so a helper called with two different images
// (darktable's blend and colour-space helpers) cannot stay a function. Such helpers are
// inlined, also at -cl-opt-disable (clang's unoptimised pipeline still inlines these).
void inline_image_helpers(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) continue;
    if (std::none_of(f.arg_begin(), f.arg_end(), [](const llvm::Argument& a) { return is_opencl_image(a.getType()); }))
      continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
}

// Runs clang on |source|, starting from the precompiled default |header| when there is one;
// the diagnostics go to |log|, the files it read from disk (not the source and |headers|,
// which are in memory) to |files|.
std::unique_ptr<llvm::Module> run_clang(const std::vector<std::string>& args,
                                        const std::string& source, llvm::LLVMContext& context,
                                        std::string* log, bool* bad_options,
                                        const Headers& headers,
                                        const std::shared_ptr<const std::string>& header,
                                        std::vector<std::string>* files, bool whole_program) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::string text;
  llvm::raw_string_ostream log_stream(text);
  clang::CompilerInstance ci;
  // The log names the file and line a #line directive gave (clang's driver does so by
  // default; a bare DiagnosticOptions does not).
  auto log_options = [] {
    auto* options = new clang::DiagnosticOptions();
    options->ShowPresumedLoc = true;
    return options;
  };
  auto* printer = new clang::TextDiagnosticPrinter(log_stream, log_options());
  ci.createDiagnostics(printer, /*ShouldOwnClient=*/true);
  if (!clang::CompilerInvocation::CreateFromArgs(ci.getInvocation(), argv, ci.getDiagnostics())) {
    log_stream.flush();
    *log += text;
    *bad_options = true;
    return nullptr;
  }
  // A diagnostics engine takes its warning options (-w, -Werror, -W...) when it is made: the
  // one above parsed the arguments, so the compiler gets one made from them.
  ci.createDiagnostics(new clang::TextDiagnosticPrinter(log_stream, log_options()),
                       /*ShouldOwnClient=*/true);
  ci.getPreprocessorOpts().addRemappedFile(
      "input.cl", llvm::MemoryBuffer::getMemBufferCopy(source, "input.cl").release());
  // Quoted includes are looked up next to input.cl, i.e. as "./name".
  for (const auto& [name, text] : headers)
    for (const std::string& path : {name, "./" + name})
      ci.getPreprocessorOpts().addRemappedFile(
          path, llvm::MemoryBuffer::getMemBufferCopy(text, path).release());
  ci.getPreprocessorOpts().RetainRemappedFileBuffers = false;
  if (header) pch::use(ci, header);
  // The summary ("1 error generated") goes to stderr when this is set; the log has carets
  // from the printer's own options.
  ci.getDiagnosticOpts().ShowCarets = false;
  static const bool top_tested_loops = keep_loops_top_tested();
  (void)top_tested_loops;
  // Code is generated without the optimiser, so inline definitions can be kept before it
  // runs; at -O0 clang emits their bodies only when it thinks it optimises (lifetime markers
  // stay off, as at -O0).
  clang::CodeGenOptions& codegen = ci.getCodeGenOpts();
  // No `noundef` on arguments: OpenCL programs pass variables they have not set yet to
  // helpers that fill them in (CLBlast's `realV result; result = MultiplyVector(result, ...)`),
  // which with it is undefined behaviour that the optimiser turns into `unreachable`: a kernel
  // that did nothing. OpenCL compilers have always run such programs as written.
  codegen.EnableNoundefAttrs = false;
  const unsigned level = codegen.OptimizationLevel;
  codegen.DisableLLVMPasses = true;
  if (level == 0) {
    codegen.OptimizationLevel = 1;
    codegen.DisableLifetimeMarkers = true;
  }
  clang::EmitLLVMOnlyAction action(&context);
  bool compiled = ci.ExecuteAction(action);
  log_stream.flush();
  *log += text;
  if (ci.hasSourceManager()) {
    const clang::SourceManager& sm = ci.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      std::string name = it->first->getName().str();
      bool in_memory = name == "input.cl" || name == pch::kMainFile || name == pch::kFile;
      for (const auto& h : headers) in_memory = in_memory || name == h.first || name == "./" + h.first;
      if (!in_memory) files->push_back(name);
    }
  }
  // The precompiled header stands for clang's own: a cached build depends on it the same.
  const std::string default_header = pch::default_header_path();
  if (header && std::find(files->begin(), files->end(), default_header) == files->end())
    files->push_back(default_header);
  if (!compiled) return nullptr;
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!module) {
    *log += "error: clang produced no module\n";
    return nullptr;
  }
  keep_inline_definitions(*module);
  if (whole_program) drop_unreached_functions(*module);
  inline_image_helpers(*module);
  // The optimiser's own warnings (a loop that cannot be unrolled as asked) go to the build
  // log, not to the application's stderr; only while it runs, since |log| may not outlive
  // this call (the unoptimised retry passes a string of its own).
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& info, void* out) {
        if (info.getSeverity() != llvm::DS_Warning && info.getSeverity() != llvm::DS_Error) return;
        std::string text;
        llvm::raw_string_ostream stream(text);
        llvm::DiagnosticPrinterRawOStream printer(stream);
        info.print(printer);
        stream.flush();
        *static_cast<std::string*>(out) += (info.getSeverity() == llvm::DS_Error ? "error: " : "warning: ") + text + "\n";
      },
      log);
  if (level > 0) rotate_loops_to_unroll(*module);
  codegen.OptimizationLevel = level;
  codegen.DisableLLVMPasses = false;
  // The SPIR targets' data layout names no native integer widths, so the optimiser takes
  // every width for a legal one and narrows values to i2 or i3 (a switch over `x & 3`), which
  // SPIR-V cannot express. Named, it keeps to them; 64 bits is left out, as on GPUs, so that
  // 32-bit loop counters are not widened to 64 bits. The translator gets the target's own
  // layout back.
  const std::string layout = module->getDataLayoutStr();
  if (layout.find("-n") == std::string::npos) module->setDataLayout(layout + "-n8:16:32");
  clang::EmitBackendOutput(ci.getDiagnostics(), ci.getHeaderSearchOpts(), codegen,
                           ci.getTargetOpts(), ci.getLangOpts(), module->getDataLayoutStr(),
                           module.get(), clang::Backend_EmitNothing, nullptr);
  module->setDataLayout(layout);
  context.setDiagnosticHandlerCallBack(nullptr);
  return module;
}

bool unsupported_width(llvm::Type* type) {
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(type)) type = v->getElementType();
  if (auto* i = llvm::dyn_cast<llvm::IntegerType>(type)) {
    unsigned w = i->getBitWidth();
    return w != 1 && w != 8 && w != 16 && w != 32 && w != 64;
  }
  return false;
}

bool has_unsupported_integer_width(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    for (const llvm::BasicBlock& b : f)
      for (const llvm::Instruction& i : b) {
        if (unsupported_width(i.getType())) return true;
        for (const llvm::Use& op : i.operands())
          if (unsupported_width(op->getType())) return true;
      }
  return false;
}

// SPIR-V allows address-space casts only to and from generic (4), but LLVM's optimiser folds
// a cast through generic into one between named spaces (e.g. comparing a __local NULL with a
// __global one), and SPIRV-LLVM-Translator then fails hard. Null casts become the target's
// null; other casts go through generic again.
bool named_to_named(llvm::Type* from, llvm::Type* to) {
  constexpr unsigned kGeneric = 4;
  auto* f = llvm::dyn_cast<llvm::PointerType>(from);
  auto* t = llvm::dyn_cast<llvm::PointerType>(to);
  return f && t && f->getAddressSpace() != kGeneric && t->getAddressSpace() != kGeneric &&
         f->getAddressSpace() != t->getAddressSpace();
}

bool has_bad_cast(const llvm::Constant* c) {
  auto* ce = llvm::dyn_cast<llvm::ConstantExpr>(c);
  if (!ce) return false;
  if (ce->getOpcode() == llvm::Instruction::AddrSpaceCast &&
      named_to_named(ce->getOperand(0)->getType(), ce->getType()))
    return true;
  for (const llvm::Use& op : ce->operands())
    if (auto* oc = llvm::dyn_cast<llvm::Constant>(op.get()); oc && has_bad_cast(oc)) return true;
  return false;
}

void fix_casts(llvm::Instruction* i) {
  constexpr unsigned kGeneric = 4;
  for (llvm::Use& use : i->operands()) {
    auto* ce = llvm::dyn_cast<llvm::ConstantExpr>(use.get());
    if (!ce || !has_bad_cast(ce)) continue;
    if (ce->getOpcode() == llvm::Instruction::AddrSpaceCast &&
        llvm::isa<llvm::ConstantPointerNull>(ce->getOperand(0))) {
      use.set(llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ce->getType())));
      continue;
    }
    if (llvm::isa<llvm::PHINode>(i)) continue;  // left to the translator's own check
    llvm::Instruction* expanded = ce->getAsInstruction(i);
    use.set(expanded);
    fix_casts(expanded);
  }
  auto* cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(i);
  if (!cast || !named_to_named(cast->getSrcTy(), cast->getDestTy())) return;
  auto* generic = llvm::PointerType::getWithSamePointeeType(
      llvm::cast<llvm::PointerType>(cast->getSrcTy()), kGeneric);
  auto* up = new llvm::AddrSpaceCastInst(cast->getOperand(0), generic, "", cast);
  auto* down = new llvm::AddrSpaceCastInst(up, cast->getDestTy(), "", cast);
  cast->replaceAllUsesWith(down);
  cast->eraseFromParent();
}

// SPIR-V allows address-space casts only to and from generic (4), but LLVM's optimiser folds
// a cast through generic into one between named spaces (e.g. comparing a __local NULL with a
// __global one), and SPIRV-LLVM-Translator then fails hard. Null casts become the target's
// null; other casts go through generic again.
void route_casts_through_generic(llvm::Module& module) {
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& b : f) {
      std::vector<llvm::Instruction*> insts;
      for (llvm::Instruction& i : b) insts.push_back(&i);
      for (llvm::Instruction* i : insts) fix_casts(i);
    }
}

std::mutex g_compile_mutex;

// Whether the program names one of the built-ins declared for clang 15 in vkcl-features.h
// (cl_khr_kernel_clock, cl_khr_subgroup_rotate, cl_khr_work_group_uniform_arithmetic).
bool names_late_builtins(const std::string& source, const Headers& headers) {
  std::vector<std::string> names = {"clock_read_", "sub_group_rotate", "sub_group_clustered_rotate"};
  for (const char* kind : {"reduce", "scan_inclusive", "scan_exclusive"})
    for (const char* op : {"mul", "and", "or", "xor", "logical_and", "logical_or", "logical_xor"})
      names.push_back(std::string("work_group_") + kind + "_" + op);
  auto names_one = [&](const std::string& text) {
    for (const std::string& n : names)
      if (text.find(n) != std::string::npos) return true;
    return false;
  };
  if (names_one(source)) return true;
  for (const auto& [name, text] : headers)
    if (names_one(text)) return true;
  return false;
}

}  // namespace

// LLVM treats a convergent call as movable out of control flow, so SimplifyCFG hoists or sinks
// identical sub-group calls from both sides of a branch into one, executed by the union of
// the two sets of work-items. For the non-uniform sub-group functions (cl_khr_subgroup_*:
// ballot, elect, broadcast_first, non-uniform reductions) that changes the result (CTS
// subgroup_functions_ballot). These are process-wide LLVM options: switching them off is safe
// for every other LLVM user in the process (it only removes an optimisation).
static void keep_convergent_calls_in_place() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& options = llvm::cl::getRegisteredOptions();
    for (const char* name : {"simplifycfg-hoist-common", "simplifycfg-sink-common"}) {
      auto it = options.find(name);
      if (it != options.end())
        if (auto* flag = static_cast<llvm::cl::opt<bool>*>(it->second)) flag->setValue(false);
    }
  });
}

// LLVM's jump threading copies a block onto each path that knows its branch's outcome: a
// test the unrolled iterations of a loop repeat (CLBlast's `a_transpose ? ... : ...` in its
// checked loads) becomes two chains of blocks crossing at every iteration, which structured
// control flow can only give back by copying the chains again (past the structurizer's
// budget, CLBlast's XgemmDirect went through a dispatch loop: SGEMM at 512 ran 14 times
// slower). Blocks with instructions in them are no longer copied. Process-wide, as above:
// other LLVM users in the process lose only that optimisation.
static void keep_jumps_unthreaded() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("jump-threading-threshold");
    if (it != options.end())
      if (auto* threshold = static_cast<llvm::cl::opt<unsigned>*>(it->second)) threshold->setValue(0);
  });
}

CompileResult compile(const std::string& source, const std::string& options,
                      const DeviceFeatures& features, bool* invalid_options,
                      const Headers& headers, bool whole_program) {
  keep_convergent_calls_in_place();
  keep_jumps_unthreaded();
  CompileResult result;
  if (invalid_options) *invalid_options = false;
  Translation t = translate_options(options);
  if (!t.error.empty()) {
    if (invalid_options) *invalid_options = true;
    result.log = "error: " + t.error + "\n";
    return result;
  }
  result.language_version = t.language_version;
  result.uniform_work_group_size = t.uniform_work_group_size;

  std::string ext = "-cl-ext=-all";
  for (const auto& e : features.extensions)
    if (e != "cl_khr_kernel_clock" && e != "cl_khr_subgroup_rotate" &&
        e != "cl_khr_work_group_uniform_arithmetic")
      ext += ",+" + e;  // newer than clang 15: declared below
  for (const auto& f : features.features)
    if (f.rfind("__opencl_c_kernel_clock", 0) != 0) ext += ",+" + f;
  if (features.fp64) ext += ",+cl_khr_fp64,+__opencl_c_fp64";
  if (features.fp16) ext += ",+cl_khr_fp16";
  if (features.int64) ext += ",+__opencl_c_int64";
  std::vector<std::string> device_macros;
  // clang 15 declares these extensions' functions only for OpenCL C 2.0 and later (from its
  // own macros); a device that reports them offers them to OpenCL C 1.2 programs too.
  for (const char* macro : {"cl_khr_extended_bit_ops", "cl_khr_integer_dot_product",
                            "__opencl_c_integer_dot_product_input_4x8bit",
                            "__opencl_c_integer_dot_product_input_4x8bit_packed"}) {
    auto has = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), macro) != list.end();
    };
    if (has(features.extensions) || has(features.features))
      device_macros.push_back(std::string("-D") + macro + "=1");
  }
  // The device's OpenCL version (clang leaves it to the implementation).
  device_macros.push_back("-D__OPENCL_VERSION__=300");
  // clang defines __IMAGE_SUPPORT__ for SPIR targets; it must tell the device's truth.
  if (!features.images) device_macros.push_back("-U__IMAGE_SUPPORT__");
  // clang 15's opencl-c-base.h defines some OpenCL C 3.0 feature macros for every SPIR
  // target whatever -cl-ext says (CTS test_compiler features_macro); a header included after
  // it undefines the ones the device lacks.
  std::string undefs;
  // The built-ins clang 15 does not know, declared below, cost a millisecond and more of
  // every compile (a third of a small kernel's): only programs that name one get them.
  std::string declarations;
  for (const char* macro : {"__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
                            "__opencl_c_atomic_scope_all_devices", "__opencl_c_read_write_images",
                            "__opencl_c_work_group_collective_functions",
                            "__opencl_c_atomic_order_acq_rel",
                            "__opencl_c_ext_fp32_global_atomic_add",
                            "__opencl_c_ext_fp32_local_atomic_add",
                            "__opencl_c_ext_fp32_global_atomic_min_max",
                            "__opencl_c_ext_fp32_local_atomic_min_max",
                            "__opencl_c_ext_fp64_global_atomic_add",
                            "__opencl_c_ext_fp64_local_atomic_add",
                            "__opencl_c_ext_fp64_global_atomic_min_max",
                            "__opencl_c_ext_fp64_local_atomic_min_max",
                            "__opencl_c_ext_fp16_global_atomic_load_store",
                            "__opencl_c_ext_fp16_local_atomic_load_store",
                            "__opencl_c_ext_fp16_global_atomic_add",
                            "__opencl_c_ext_fp16_local_atomic_add",
                            "__opencl_c_ext_fp16_global_atomic_min_max",
                            "__opencl_c_ext_fp16_local_atomic_min_max",
                            "__opencl_c_integer_dot_product_input_4x8bit",
                            "__opencl_c_integer_dot_product_input_4x8bit_packed"})
    if (std::find(features.features.begin(), features.features.end(), macro) ==
        features.features.end())
      undefs += std::string("#undef ") + macro + "\n";
  // cl_khr_kernel_clock's built-ins, which clang 15 does not know: declared here (mangled
  // like every built-in) and turned into OpReadClockKHR by the translator (link_builtins).
  auto has_feature = [&](const char* name) {
    return std::find(features.features.begin(), features.features.end(), name) != features.features.end();
  };
  if (std::find(features.extensions.begin(), features.extensions.end(), "cl_khr_kernel_clock") !=
      features.extensions.end()) {
    undefs += "#define cl_khr_kernel_clock 1\n";
    for (const char* scope : {"device", "work_group", "sub_group"}) {
      std::string feature = std::string("__opencl_c_kernel_clock_scope_") + scope;
      if (!has_feature(feature.c_str())) continue;
      undefs += "#define " + feature + " 1\n";
      declarations += std::string("ulong __attribute__((overloadable)) clock_read_") + scope + "(void);\n";
      declarations += std::string("uint2 __attribute__((overloadable)) clock_read_hilo_") + scope + "(void);\n";
    }
  }
  // cl_khr_subgroup_rotate's likewise; llvm-spirv knows them (OpGroupNonUniformRotateKHR).
  if (std::find(features.extensions.begin(), features.extensions.end(), "cl_khr_subgroup_rotate") !=
      features.extensions.end()) {
    undefs += "#define cl_khr_subgroup_rotate 1\n";
    std::vector<std::string> types = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float"};
    if (features.fp64) types.push_back("double");
    if (features.fp16) types.push_back("half");
    for (const std::string& t : types) {
      // half needs its pragma to be named at all; the user's own pragma state follows.
      if (t == "half") declarations += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
      declarations += t + " __attribute__((overloadable)) sub_group_rotate(" + t + ", int);\n";
      declarations += t + " __attribute__((overloadable)) sub_group_clustered_rotate(" + t + ", int, uint);\n";
      if (t == "half") declarations += "#pragma OPENCL EXTENSION cl_khr_fp16 : disable\n";
    }
  }
  // cl_khr_work_group_uniform_arithmetic likewise (OpGroup*KHR: llvm-spirv translates some,
  // link_builtins the rest).
  if (std::find(features.extensions.begin(), features.extensions.end(),
                "cl_khr_work_group_uniform_arithmetic") != features.extensions.end()) {
    undefs += "#define cl_khr_work_group_uniform_arithmetic 1\n";
    std::vector<std::string> types = {"int", "uint", "long", "ulong", "float"};
    if (features.fp64) types.push_back("double");
    for (const char* kind : {"reduce", "scan_inclusive", "scan_exclusive"}) {
      for (const std::string& t : types) {
        declarations += t + " __attribute__((overloadable)) work_group_" + kind + "_mul(" + t + ");\n";
        if (t == "float" || t == "double") continue;
        for (const char* op : {"and", "or", "xor"})
          declarations += t + " __attribute__((overloadable)) work_group_" + kind + "_" + op + "(" + t + ");\n";
      }
      for (const char* op : {"logical_and", "logical_or", "logical_xor"})
        declarations += std::string("int __attribute__((overloadable)) work_group_") + kind + "_" + op + "(int);\n";
    }
  }
  const bool declared = !declarations.empty() && names_late_builtins(source, headers);
  Headers all_headers = headers;
  // What the default header means depends on these arguments alone (pch.h).
  // -fno-jump-tables: no switch becomes a lookup table, which would be a private array at
  // module scope (a Function-storage variable outside any function: invalid SPIR-V) and,
  // on a GPU, scratch memory in place of a few selects.
  std::vector<std::string> header_args = {"-triple", "spir64-unknown-unknown", "-x", "cl",
                                          "-emit-llvm-bc", "-finclude-default-header",
                                          "-fdeclare-opencl-builtins", "-no-opaque-pointers",
                                          "-cl-kernel-arg-info", "-fno-jump-tables",
                                          "-resource-dir", VKCL_CLANG_RESOURCE_DIR, ext};
  header_args.insert(header_args.end(), t.args.begin(), t.args.end());
  std::vector<std::string> args = header_args;
  header_args.insert(header_args.end(), device_macros.begin(), device_macros.end());
  // The application's macros come before the device's, whose definitions win.
  args.insert(args.end(), t.macros.begin(), t.macros.end());
  args.insert(args.end(), device_macros.begin(), device_macros.end());
  if (!undefs.empty() || !declarations.empty()) {
    all_headers.emplace_back("vkcl-features.h", declared ? undefs + declarations : undefs);
    args.push_back("-include");
    args.push_back("vkcl-features.h");
  }
  args.push_back("input.cl");
  // Everything the result depends on but the library and the files read from disk (which the
  // entry records): a program built before comes from the cache.
  std::vector<std::string> key_parts = args;
  key_parts.push_back(whole_program ? "whole program" : "object");
  key_parts.push_back(source);
  for (const auto& [name, text] : all_headers) {
    key_parts.push_back(name);
    key_parts.push_back(text);
  }
  const std::string key = cache::key(key_parts);
  if (std::optional<CompileResult> hit = cache::lookup(key)) {
    for (KernelInfo& k : hit->kernels) k.args_reported = t.kernel_arg_info;
    return *hit;
  }
  std::vector<std::string> files;
  std::lock_guard<std::mutex> lock(g_compile_mutex);
  // clang, LLVM and SPIRV-LLVM-Translator from here on (the cache's store too): an exception
  // must not unwind through them or the callbacks they make.
  host_allocation::ForeignCode foreign;
  auto context = std::make_unique<llvm::LLVMContext>();
  bool bad_options = false;
  std::shared_ptr<const std::string> header =
      pch::allowed(t.macro_names) ? pch::find(header_args) : nullptr;
  std::unique_ptr<llvm::Module> module =
      run_clang(args, source, *context, &result.log, &bad_options, all_headers, header, &files, whole_program);
  // Each attempt after the first starts from a new context: in the old one the types an
  // earlier attempt made keep their names, and the new module's image and sampler types
  // would be renamed (opencl.image2d_ro_t.0), which SPIRV-LLVM-Translator does not recognise
  // (it aborts the process).
  auto again = [&](std::string* log, const std::shared_ptr<const std::string>& with_header) {
    module.reset();
    context = std::make_unique<llvm::LLVMContext>();
    files.clear();
    return run_clang(args, source, *context, log, &bad_options, all_headers, with_header, &files, whole_program);
  };
  if (!module && header && result.log.find(pch::kFile) != std::string::npos) {
    // The precompiled header did not load (clang changed since it was made): without it.
    pch::discard(header_args);
    header = nullptr;
    result.log.clear();
    module = again(&result.log, header);
  }
  if (!module && !declarations.empty() && !declared) {
    // The program may name them in a way the search missed (a header on disk, a macro that
    // pastes the name together): OpenCL C has no implicit declarations, so it failed; again
    // with them.
    all_headers.back().second = undefs + declarations;
    result.log.clear();
    module = again(&result.log, header);
  }
  if (bad_options && invalid_options) *invalid_options = true;
  if (!module) return result;
  result.from_precompiled_header = header != nullptr;
  if (has_unsupported_integer_width(*module)) {
    // The optimiser narrowed some values to odd widths (i3 switch conditions, say) that
    // SPIR-V cannot express and that would abort SPIRV-LLVM-Translator: build unoptimised.
    for (auto& a : args)
      if (a == "-O2") a = "-O0";
    std::string ignored;
    result.from_precompiled_header = false;
    module = again(&ignored, nullptr);
    if (!module || has_unsupported_integer_width(*module)) {
      result.log += "error: the program needs integer widths SPIR-V cannot express\n";
      return result;
    }
    result.log += "note: optimisations were disabled: they introduced integer widths that "
                  "SPIR-V cannot express\n";
  }
  for (const llvm::Function& f : *module) {
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL || f.isDeclaration()) continue;
    result.kernels.push_back(kernel_info(f));
    result.kernels.back().args_reported = t.kernel_arg_info;
  }

  route_casts_through_generic(*module);
  if (!legalize_for_translator(*module, &result.log)) return result;
  // SPIR-V 1.3 is the first with OpGroupNonUniform* (cl_khr_subgroup_*); llvm-spirv aborts the
  // process, rather than failing, when a module needs more than the version it may use.
  // cl_ext_float_atomics' add/sub/min/max become OpAtomicF{Add,Min,Max}EXT only with these
  // extensions; the lowering turns them into native atomics or compare-exchange loops.
  // cl_khr_extended_bit_ops, cl_khr_integer_dot_product and cl_khr_subgroup_rotate calls
  // become their SPIR-V instructions only with theirs (without, llvm-spirv exits the process
  // on sub_group_rotate).
  SPIRV::TranslatorOpts opts(SPIRV::VersionNumber::SPIRV_1_4,
                             {{SPIRV::ExtensionID::SPV_EXT_shader_atomic_float_add, true},
                              {SPIRV::ExtensionID::SPV_EXT_shader_atomic_float_min_max, true},
                              {SPIRV::ExtensionID::SPV_KHR_bit_instructions, true},
                              {SPIRV::ExtensionID::SPV_KHR_integer_dot_product, true},
                              {SPIRV::ExtensionID::SPV_KHR_subgroup_rotate, true},
                              {SPIRV::ExtensionID::SPV_KHR_uniform_group_instructions, true}});
  std::ostringstream spirv;
  std::string error;
  if (!llvm::writeSpirv(module.get(), opts, spirv, error)) {
    result.log += "error: SPIR-V translation failed: " + error + "\n";
    return result;
  }
  std::string bytes = spirv.str();
  result.spirv.resize(bytes.size() / 4);
  std::copy(bytes.begin(), bytes.begin() + result.spirv.size() * 4,
            reinterpret_cast<char*>(result.spirv.data()));
  result.ok = true;
  cache::store(key, result, files);
  return result;
}

}  // namespace vkcl::compiler

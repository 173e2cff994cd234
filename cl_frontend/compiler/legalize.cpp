// LLVM IR that SPIRV-LLVM-Translator 15 cannot translate, rewritten before it sees it. The
// translator does not fail on these: it aborts the process (its error checks call abort()
// and the switch that turns that off is not exported), so a kernel whose optimised IR holds
// one would take the application down. LLVM's optimiser produces them from ordinary OpenCL C:
// `freeze` from loop unswitching, saturating adds from `s < a ? UINT_MAX : s`, reductions
// from the SLP vectoriser, overflow intrinsics from carry checks. And IR it translates into
// invalid SPIR-V: phis that name a block once per edge from it.
#include "compiler/legalize.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <vector>

namespace vkcl::compiler {

namespace {

using llvm::Intrinsic::ID;

// Folds the elements of |v| with |op| (and |start| first when given).
llvm::Value* fold(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Value* start,
                  const std::function<llvm::Value*(llvm::Value*, llvm::Value*)>& op) {
  auto* type = llvm::cast<llvm::FixedVectorType>(v->getType());
  llvm::Value* acc = start;
  for (unsigned k = 0; k < type->getNumElements(); ++k) {
    llvm::Value* e = b.CreateExtractElement(v, b.getInt32(k));
    acc = acc ? op(acc, e) : e;
  }
  return acc;
}

llvm::Value* min_max(llvm::IRBuilder<>& b, llvm::CmpInst::Predicate p, llvm::Value* x, llvm::Value* y) {
  return b.CreateSelect(b.CreateICmp(p, x, y), x, y);
}

// The {result, overflowed} pair an llvm.*.with.overflow call returns.
llvm::Value* pair(llvm::IRBuilder<>& b, llvm::CallInst* call, llvm::Value* result, llvm::Value* overflow) {
  llvm::Value* p = b.CreateInsertValue(llvm::UndefValue::get(call->getType()), result, 0);
  return b.CreateInsertValue(p, overflow, 1);
}

// The replacement of |call|, or nullptr when it is not one of the intrinsics handled here.
llvm::Value* expand(llvm::IntrinsicInst* call) {
  llvm::IRBuilder<> b(call);
  auto arg = [&](unsigned k) { return call->getArgOperand(k); };
  using P = llvm::CmpInst::Predicate;
  switch (call->getIntrinsicID()) {
    case llvm::Intrinsic::uadd_sat: {
      llvm::Value* sum = b.CreateAdd(arg(0), arg(1));
      return b.CreateSelect(b.CreateICmpULT(sum, arg(0)),
                            llvm::Constant::getAllOnesValue(sum->getType()), sum);
    }
    case llvm::Intrinsic::ssub_sat: {
      llvm::Value* diff = b.CreateSub(arg(0), arg(1));
      // Overflow when the operands' signs differ and the result's differs from the first's.
      llvm::Value* overflow = b.CreateICmpSLT(
          b.CreateAnd(b.CreateXor(arg(0), arg(1)), b.CreateXor(arg(0), diff)),
          llvm::Constant::getNullValue(diff->getType()));
      unsigned bits = diff->getType()->getScalarSizeInBits();
      llvm::Value* low = llvm::ConstantInt::get(diff->getType(), llvm::APInt::getSignedMinValue(bits));
      llvm::Value* high = llvm::ConstantInt::get(diff->getType(), llvm::APInt::getSignedMaxValue(bits));
      llvm::Value* bound = b.CreateSelect(
          b.CreateICmpSLT(arg(0), llvm::Constant::getNullValue(diff->getType())), low, high);
      return b.CreateSelect(overflow, bound, diff);
    }
    case llvm::Intrinsic::uadd_with_overflow: {
      llvm::Value* sum = b.CreateAdd(arg(0), arg(1));
      return pair(b, call, sum, b.CreateICmpULT(sum, arg(0)));
    }
    case llvm::Intrinsic::usub_with_overflow:
      return pair(b, call, b.CreateSub(arg(0), arg(1)), b.CreateICmpULT(arg(0), arg(1)));
    case llvm::Intrinsic::ssub_with_overflow: {
      llvm::Value* diff = b.CreateSub(arg(0), arg(1));
      llvm::Value* zero = llvm::Constant::getNullValue(diff->getType());
      return pair(b, call, diff,
                  b.CreateICmpSLT(b.CreateAnd(b.CreateXor(arg(0), arg(1)), b.CreateXor(arg(0), diff)), zero));
    }
    case llvm::Intrinsic::smul_with_overflow: {
      // Overflow unless the product divided by a gives b back (and not MIN * -1).
      llvm::Type* t = arg(0)->getType();
      llvm::Value* product = b.CreateMul(arg(0), arg(1));
      llvm::Value* zero = llvm::Constant::getNullValue(t);
      llvm::Value* a_zero = b.CreateICmpEQ(arg(0), zero);
      llvm::Value* divisor = b.CreateSelect(a_zero, llvm::ConstantInt::get(t, 1), arg(0));
      llvm::Value* minus_one = llvm::Constant::getAllOnesValue(t);
      llvm::Value* min = llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(t->getScalarSizeInBits()));
      llvm::Value* min_times_minus_one = b.CreateAnd(b.CreateICmpEQ(arg(0), minus_one), b.CreateICmpEQ(arg(1), min));
      // the division of MIN by -1 is itself undefined: divide by 1 there instead
      divisor = b.CreateSelect(min_times_minus_one, llvm::ConstantInt::get(t, 1), divisor);
      llvm::Value* back = b.CreateICmpNE(b.CreateSDiv(product, divisor), arg(1));
      llvm::Value* overflow = b.CreateOr(min_times_minus_one, b.CreateAnd(b.CreateNot(a_zero), back));
      return pair(b, call, product, overflow);
    }
    case llvm::Intrinsic::fshl:
    case llvm::Intrinsic::fshr: {
      // Funnel shifts (LLVM's rotates, and its switch over 0, 4, 8, ... reduced to 0, 1, 2,
      // ...): the translator makes a function call of each, whose body shifts by the full
      // width when the amount is a multiple of it (undefined in SPIR-V). Inline, defined.
      llvm::Type* type = call->getType();
      const unsigned bits = type->getScalarSizeInBits();
      llvm::Value* width = llvm::ConstantInt::get(type, bits);
      llvm::Value* amount = b.CreateURem(arg(2), width);
      llvm::Value* rest = b.CreateSub(width, amount);
      const bool left = call->getIntrinsicID() == llvm::Intrinsic::fshl;
      // (The operand shifted by |rest| is shifted by less than the width: |amount| is not 0
      // wherever the select takes it.)
      llvm::Value* safe_rest = b.CreateURem(rest, width);
      llvm::Value* high = b.CreateShl(arg(0), left ? amount : safe_rest);
      llvm::Value* low = b.CreateLShr(arg(1), left ? safe_rest : amount);
      llvm::Value* none = b.CreateICmpEQ(amount, llvm::Constant::getNullValue(type));
      return b.CreateSelect(none, left ? arg(0) : arg(1), b.CreateOr(high, low));
    }
    case llvm::Intrinsic::canonicalize:  // only quiets signalling NaNs: nothing to do here
      return arg(0);
    case llvm::Intrinsic::vector_reduce_add:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateAdd(x, y); });
    case llvm::Intrinsic::vector_reduce_mul:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateMul(x, y); });
    case llvm::Intrinsic::vector_reduce_and:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateAnd(x, y); });
    case llvm::Intrinsic::vector_reduce_or:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateOr(x, y); });
    case llvm::Intrinsic::vector_reduce_xor:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateXor(x, y); });
    case llvm::Intrinsic::vector_reduce_smax:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return min_max(b, P::ICMP_SGT, x, y); });
    case llvm::Intrinsic::vector_reduce_smin:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return min_max(b, P::ICMP_SLT, x, y); });
    case llvm::Intrinsic::vector_reduce_umax:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return min_max(b, P::ICMP_UGT, x, y); });
    case llvm::Intrinsic::vector_reduce_umin:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return min_max(b, P::ICMP_ULT, x, y); });
    case llvm::Intrinsic::vector_reduce_fadd:  // in order, from the start value
      return fold(b, arg(1), arg(0), [&](auto* x, auto* y) { return b.CreateFAdd(x, y); });
    case llvm::Intrinsic::vector_reduce_fmul:
      return fold(b, arg(1), arg(0), [&](auto* x, auto* y) { return b.CreateFMul(x, y); });
    case llvm::Intrinsic::vector_reduce_fmax:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateMaxNum(x, y); });
    case llvm::Intrinsic::vector_reduce_fmin:
      return fold(b, arg(0), nullptr, [&](auto* x, auto* y) { return b.CreateMinNum(x, y); });
    default:
      return nullptr;
  }
}

// Intrinsics seen to abort SPIRV-LLVM-Translator 15 that are not expanded above.
bool untranslatable(ID id) {
  switch (id) {
    case llvm::Intrinsic::smul_fix: case llvm::Intrinsic::umul_fix:
    case llvm::Intrinsic::smul_fix_sat: case llvm::Intrinsic::umul_fix_sat:
    case llvm::Intrinsic::ushl_sat: case llvm::Intrinsic::sshl_sat:
    case llvm::Intrinsic::fptoui_sat: case llvm::Intrinsic::fptosi_sat:
    case llvm::Intrinsic::ptrmask: case llvm::Intrinsic::readcyclecounter:
    case llvm::Intrinsic::stacksave: case llvm::Intrinsic::stackrestore:
      return true;
    default:
      return false;
  }
}

// An alloca after the first instructions of the entry block that are not allocas becomes an
// OpVariable there, which SPIR-V does not allow (hashcat's sha256crypt, -m 7400, failed to
// link): the optimiser puts the byte-pointer cast of a private array, for the memcpy that a
// copying loop became, right after its alloca, before the next one. A fixed-size alloca's storage is undefined at each allocation, so one slot at the
// start of the function serves every execution of it; the allocas keep their order.
void hoist_fixed_allocas(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    std::vector<llvm::AllocaInst*> allocas;
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block)
        if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i); a && llvm::isa<llvm::Constant>(a->getArraySize()))
          allocas.push_back(a);
    llvm::BasicBlock& entry = f.getEntryBlock();
    for (auto a = allocas.rbegin(); a != allocas.rend(); ++a) (*a)->moveBefore(&*entry.begin());
  }
}

}  // namespace

// Unoptimised code spills every parameter to an alloca; for a sampler_t parameter of a
// function that is not a kernel, SPIRV-LLVM-Translator 15 then aborts ("Inconsistent operand
// types" in SPIRVStore). Images and samplers cannot change after they are passed, so the
// spill slot of one (a single store in the entry block, only loads after it) is the stored
// value itself.
void forward_opaque_spills(llvm::Module& module) {
  std::vector<llvm::AllocaInst*> slots;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block)
        if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i))
          if (is_opencl_image(a->getAllocatedType(), /*or_sampler=*/true)) slots.push_back(a);
  for (llvm::AllocaInst* a : slots) {
    llvm::StoreInst* store = nullptr;
    std::vector<llvm::LoadInst*> loads;
    bool simple = true;
    for (llvm::User* u : a->users()) {
      if (auto* s = llvm::dyn_cast<llvm::StoreInst>(u)) {
        simple = simple && !store && s->getPointerOperand() == a &&
                 s->getParent() == &s->getFunction()->getEntryBlock();
        store = s;
      } else if (auto* l = llvm::dyn_cast<llvm::LoadInst>(u)) {
        loads.push_back(l);
      } else {
        simple = false;
      }
    }
    if (!simple || !store) continue;
    for (llvm::LoadInst* l : loads)
      if (l->getParent() == store->getParent() && !store->comesBefore(l)) simple = false;
    if (!simple) continue;
    for (llvm::LoadInst* l : loads) {
      l->replaceAllUsesWith(store->getValueOperand());
      l->eraseFromParent();
    }
    store->eraseFromParent();
    a->eraseFromParent();
  }
}

// An LLVM phi names its block once per edge from it (a switch whose cases share a target),
// and the translator copies the list as it is; SPIR-V's OpPhi names each parent block once.
// The shared edges go through one block of their own, which the phi names instead.
void merge_repeated_edges(llvm::Module& module) {
  for (llvm::Function& f : module) {
    std::vector<llvm::BasicBlock*> blocks;
    for (llvm::BasicBlock& block : f) blocks.push_back(&block);
    for (llvm::BasicBlock* block : blocks) {
      llvm::Instruction* term = block->getTerminator();
      if (!term || term->getNumSuccessors() < 2) continue;
      std::map<llvm::BasicBlock*, unsigned> edges;
      for (unsigned k = 0; k < term->getNumSuccessors(); ++k) ++edges[term->getSuccessor(k)];
      for (auto [target, count] : edges) {
        if (count < 2 || !llvm::isa<llvm::PHINode>(target->front())) continue;
        auto* bridge = llvm::BasicBlock::Create(f.getContext(), "", &f, target);
        llvm::BranchInst::Create(target, bridge);
        for (unsigned k = 0; k < term->getNumSuccessors(); ++k)
          if (term->getSuccessor(k) == target) term->setSuccessor(k, bridge);
        for (llvm::PHINode& phi : target->phis()) {
          llvm::Value* value = phi.getIncomingValueForBlock(block);
          while (phi.getBasicBlockIndex(block) >= 0) phi.removeIncomingValue(block, false);
          phi.addIncoming(value, bridge);
        }
      }
    }
  }
}

bool is_opencl_image(llvm::Type* type, bool or_sampler) {
  auto* pointer = llvm::dyn_cast<llvm::PointerType>(type);
  if (!pointer || pointer->isOpaque()) return false;
  auto* pointee = llvm::dyn_cast<llvm::StructType>(pointer->getNonOpaquePointerElementType());
  if (!pointee || !pointee->isOpaque() || !pointee->hasName()) return false;
  return pointee->getName().startswith("opencl.image") ||
         (or_sampler && pointee->getName() == "opencl.sampler_t");
}

bool legalize_for_translator(llvm::Module& module, std::string* log) {
  hoist_fixed_allocas(module);
  forward_opaque_spills(module);
  merge_repeated_edges(module);
  std::vector<llvm::Instruction*> work;
  for (llvm::Function& f : module)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block)
        if (llvm::isa<llvm::FreezeInst>(i) || llvm::isa<llvm::IntrinsicInst>(i)) work.push_back(&i);
  bool ok = true;
  for (llvm::Instruction* i : work) {
    if (auto* freeze = llvm::dyn_cast<llvm::FreezeInst>(i)) {
      // A frozen value may be any value where the operand is poison; the operand itself is
      // one such choice.
      freeze->replaceAllUsesWith(freeze->getOperand(0));
      freeze->eraseFromParent();
      continue;
    }
    auto* call = llvm::cast<llvm::IntrinsicInst>(i);
    if (llvm::Value* replacement = expand(call)) {
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    } else if (untranslatable(call->getIntrinsicID())) {
      *log += "error: the optimised program uses " + call->getCalledFunction()->getName().str() +
              ", which SPIRV-LLVM-Translator 15 cannot translate (try -cl-opt-disable)\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace vkcl::compiler

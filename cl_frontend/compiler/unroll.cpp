#include "compiler/unroll.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/InstructionSimplify.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LoopRotationUtils.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

namespace vkcl::compiler {
namespace {

constexpr unsigned kSmallTripCount = 16;
// Instructions the header may have to be copied (LLVM's own default).
constexpr unsigned kHeaderSize = 16;

bool wants_unroll(llvm::Loop& loop, llvm::ScalarEvolution& se) {
  if (llvm::hasUnrollTransformation(&loop) == llvm::TM_Disable) return false;
  if (llvm::findOptionMDForLoop(&loop, "llvm.loop.unroll.enable") ||
      llvm::findOptionMDForLoop(&loop, "llvm.loop.unroll.full") ||
      llvm::findOptionMDForLoop(&loop, "llvm.loop.unroll.count"))
    return true;
  const unsigned trips = se.getSmallConstantTripCount(&loop);
  return trips != 0 && trips <= kSmallTripCount;
}

struct RotateToUnroll : llvm::PassInfoMixin<RotateToUnroll> {
  llvm::PreservedAnalyses run(llvm::Loop& loop, llvm::LoopAnalysisManager&,
                              llvm::LoopStandardAnalysisResults& ar, llvm::LPMUpdater&) {
    if (!wants_unroll(loop, ar.SE)) return llvm::PreservedAnalyses::all();
    const llvm::DataLayout& layout = loop.getHeader()->getModule()->getDataLayout();
    const llvm::SimplifyQuery query(layout, &ar.TLI, &ar.DT, &ar.AC);
    bool changed = llvm::LoopRotation(&loop, &ar.LI, &ar.TTI, &ar.AC, &ar.DT, &ar.SE, nullptr, query,
                                      /*RotationOnly=*/false, kHeaderSize, /*IsUtilMode=*/false);
    return changed ? llvm::getLoopPassPreservedAnalyses() : llvm::PreservedAnalyses::all();
  }
};

// Whether some function branches back to a block at or before the branch's own, in layout
// order: clang lays a loop's header out before its body, so a module without one has no loop.
bool may_have_loops(const llvm::Module& module) {
  for (const llvm::Function& f : module) {
    llvm::DenseMap<const llvm::BasicBlock*, unsigned> place;
    unsigned n = 0;
    for (const llvm::BasicBlock& b : f) place[&b] = n++;
    for (const llvm::BasicBlock& b : f)
      for (const llvm::BasicBlock* next : llvm::successors(&b))
        if (place.lookup(next) <= place.lookup(&b)) return true;
  }
  return false;
}

}  // namespace

void rotate_loops_to_unroll(llvm::Module& module) {
  // The passes below cost a twentieth of a small kernel's build, for nothing without loops.
  if (!may_have_loops(module)) return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  // Induction variables in registers first, so that trip counts can be computed.
  llvm::FunctionPassManager functions;
  functions.addPass(llvm::SROAPass());
  functions.addPass(llvm::EarlyCSEPass());
  functions.addPass(llvm::SimplifyCFGPass());
  functions.addPass(llvm::createFunctionToLoopPassAdaptor(RotateToUnroll()));
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(functions)));
  passes.run(module, mam);
}

}  // namespace vkcl::compiler

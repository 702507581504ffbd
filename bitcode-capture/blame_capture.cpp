// blame's bitcode capture: an LLVM pass plugin that `blame cc` loads into
// clang 19 (`-fpass-plugin=`) so that one compile both builds the object
// and hands the variable-blame analysis the unit's unoptimized IR.
//
// At the start of the optimization pipeline (before any pass that changes
// the IR) it writes the module as bitcode to the file named by
// $BLAME_CAPTURE_BITCODE, and changes nothing: the object is the one the
// same command builds without the plugin. Without the variable it does
// nothing. A failed write leaves no file; `blame cc` then has no bitcode
// to queue and says so.

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

using namespace llvm;

namespace {

struct CaptureBitcode : PassInfoMixin<CaptureBitcode> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    const char *path = std::getenv("BLAME_CAPTURE_BITCODE");
    if (path == nullptr || *path == '\0')
      return PreservedAnalyses::all();
    // Written beside the target, then renamed: a reader never sees half.
    std::string tmp = std::string(path) + ".part";
    std::error_code ec;
    {
      raw_fd_ostream out(tmp, ec, sys::fs::OF_None);
      if (ec)
        return PreservedAnalyses::all();
      WriteBitcodeToFile(M, out);
      out.close();
      if (out.has_error()) {
        out.clear_error();
        sys::fs::remove(tmp);
        return PreservedAnalyses::all();
      }
    }
    if (sys::fs::rename(tmp, path))
      sys::fs::remove(tmp);
    return PreservedAnalyses::all();
  }
  // Runs at -O0 too (optnone functions do not skip module passes).
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "blame-capture-bitcode", "1",
          [](PassBuilder &PB) {
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(CaptureBitcode());
                });
          }};
}

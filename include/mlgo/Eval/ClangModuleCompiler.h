//===- mlgo/Eval/ClangModuleCompiler.h - Compile with clang ----*- C++ -*-===//
//
// The ModuleCompiler that spawns `clang-19 -cc1` with a corpus module's
// stored arguments (mlgo/Corpus/CompileCommand.h), adding the plugin for a
// model, with a timeout per compile, and measures the object's .text.
//
// The .text size of an object is the sum of the sizes of its sections named
// ".text" or starting with ".text." (-ffunction-sections puts each function
// in its own .text.<name>); for an archive, the sum over its members; for a
// linked ELF binary or shared library, over its sections the same way.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_CLANGMODULECOMPILER_H
#define MLGO_EVAL_CLANGMODULECOMPILER_H

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Eval/ModuleCompiler.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/Support/MemoryBufferRef.h"

#include <vector>

namespace mlgo {

/// Spawns clang -cc1 per compile, writing the object to a temporary file
/// that is removed after measuring. The spawn and the measure are a task
/// (mlgo/Support/Tasks.h): the same call wherever it runs.
class ClangModuleCompiler : public ModuleCompiler {
public:
  struct Options {
    std::string Clang = "clang-19";
    /// mlgo-plugin.so, loaded with -load and -fpass-plugin for a model.
    std::string PluginPath;
    /// Per compile; 0: no limit.
    unsigned TimeoutSeconds = 600;
  };

  ClangModuleCompiler(llvm::StringRef CorpusDir, CorpusDescription Description,
                      Options Opts);

  llvm::Expected<CodeSize> codeSize(llvm::StringRef Module,
                                    const CompilePolicy &Policy) override;
  /// The compiles as tasks (runTasks): here on threads, or on the worker
  /// ranks of a run across machines.
  std::vector<llvm::Expected<CodeSize>>
  codeSizes(llvm::ArrayRef<Request> Requests, unsigned Threads,
            const ProgressCallback &Progress) override;

  /// The task that compiles \p Module under \p Policy (kind
  /// "clang-code-size"): its inputs are the module's bitcode and the
  /// policy's model and decisions files; its answer encodes the CodeSize.
  llvm::Expected<Task> makeTask(llvm::StringRef Module,
                                const CompilePolicy &Policy) const;

private:
  std::string CorpusDir;
  CorpusDescription Description;
  Options Opts;
};

/// The code size (getTextSize in mlgo/Corpus/Extract.h: every executable
/// section) of the object file, linked binary, shared library or archive in
/// \p Buffer; of an archive, the sum over its object members.
llvm::Expected<uint64_t> measureTextSize(llvm::MemoryBufferRef Buffer);
/// The same, for the file at \p Path; errors name the file.
llvm::Expected<uint64_t> measureTextSize(llvm::StringRef Path);

} // namespace mlgo

#endif // MLGO_EVAL_CLANGMODULECOMPILER_H

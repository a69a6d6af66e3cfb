//===- mlgo/Compile/CompileWorker.h - Compiling one module in-process -*- C++
//-*-===//
//
// The inner loop of training: compile one corpus module under a policy and
// return its native .text size and the decision log - inside this process,
// through clang's own CompilerInstance (libclang-cpp), so the result is the
// one `clang-19 -cc1 <module's stored args> -x ir module.bc` gives with the
// plugin loaded, without spawning clang, loading the plugin or writing any
// file.
//
// The policy (mlgo/Inline/CompilePolicy.h) is a decision source with
// optional exploration and a set of "flips": decision indices whose
// proposed decision is inverted. Flips are what search-based trainers vary -
// the decisions before the first flip are the source's, so a trajectory can
// be edited one decision at a time.
//
// compileModule() runs in the calling process; a crash in LLVM takes the
// process down with it. WorkerPool (WorkerPool.h) runs it in forked worker
// processes for fault isolation and timeouts.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_COMPILEWORKER_H
#define MLGO_COMPILE_COMPILEWORKER_H

#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Support/CodeOnce.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One module to compile.
struct CompileJob {
  /// The module's name in its corpus (for messages).
  std::string Module;
  std::string BitcodePath;
  /// The module's stored cc1 arguments (its .cmd), unfiltered.
  std::vector<std::string> CC1Args;
  CompilePolicy ThePolicy;
  /// Return the training log (features, heuristic and applied decision per
  /// policy decision). Not available for PolicyKind::Stock.
  bool WantLog = false;
  /// Return every policy decision's call site (CompileResult::Sites). Not
  /// available for PolicyKind::Stock.
  bool WantSites = false;
  /// Return every defined function's IR2Native features at the end of the
  /// IR pipeline with its symbol's size in the object
  /// (CompileResult::Functions; docs/ir2native.md). In-process compiles
  /// only: the worker pool does not carry them.
  bool WantFunctionSizes = false;
  /// With WantLog: each policy decision's outcome in the log is the
  /// embedded native-size model's predicted saving, "delta_size"
  /// (MLGOInlineAdvisorOptions::SizeScore; docs/ir2native.md).
  bool WantSizeScore = false;
  /// With WantSizeScore: declined sites score the estimated saving of
  /// inlining them (MLGOInlineAdvisorOptions::ScoreDeclined).
  bool WantDeclinedScore = false;
  /// Run the IR pipeline only, without the code generator, and return the
  /// embedded native-size model's prediction of the object's .text
  /// (CompileResult::PredictedText): what `mlgo tune --predict` asks
  /// before it compiles a move. TextSize and Grouped are then 0 and empty.
  bool PredictOnly = false;
};

/// A function of a compiled module: its size features at the end of the
/// IR pipeline, and its symbol's bytes in the object.
struct FunctionSize {
  std::string Name;
  uint64_t NativeSize = 0;
  std::vector<int64_t> Features;
};

/// The hash that stands for a grouped section's name in CompileResult.
uint64_t hashGroupedName(llvm::StringRef Name);

struct CompileResult {
  /// Sum of the sizes of the object's executable sections.
  uint64_t TextSize = 0;
  /// The object's grouped executable sections (C++ inline and template
  /// functions; a linker keeps one copy of each per program), sorted by
  /// name hash. Part of TextSize.
  std::vector<GroupedSection> Grouped;
  /// Policy decisions taken (0 for Stock).
  uint32_t NumDecisions = 0;
  /// The training log in LLVM's format, when requested.
  std::string Log;
  /// Every policy decision's call site and applied decision, in order, when
  /// requested.
  std::vector<DecidedSite> Sites;
  /// With WantFunctionSizes: every function the IR pipeline left defined,
  /// in module order; NativeSize 0 for one without a symbol of that name
  /// in the object (private linkage, or dropped by the code generator).
  std::vector<FunctionSize> Functions;
  /// With PredictOnly: the sum of the predicted native bytes of every
  /// function the IR pipeline left defined (docs/ir2native.md).
  double PredictedText = 0;
  /// Wall-clock seconds of the compile.
  double Seconds = 0;
};

/// Compiles \p Job in this process. Errors name the module and carry
/// clang's diagnostics; an OutputWriteError when the object could not be
/// written.
llvm::Expected<CompileResult> compileModule(const CompileJob &Job);

/// Where compileModule() has clang write objects in this process: a file
/// of its own in $TMPDIR when set, else in /dev/shm when it exists, else in
/// /tmp (each compile removes it).
llvm::StringRef getScratchObjectPath();

/// A compile that could not write its object to the scratch file (a full
/// disk, a file size limit): the machine's fault, not the module's, so its
/// failure is not the module's result and must not be cached as one.
class OutputWriteError : public llvm::ErrorInfo<OutputWriteError> {
public:
  static char ID;
  explicit OutputWriteError(std::string Message)
      : Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override {
    return std::make_error_code(std::errc::io_error);
  }

private:
  std::string Message;
};

} // namespace mlgo

#endif // MLGO_COMPILE_COMPILEWORKER_H

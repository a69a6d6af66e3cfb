//===- mlgo/Tune/LtoObjective.h - The final LTO artifact's .text -*- C++ -*-=//
//
// LtoObjective is the same objective as users ship it (`mlgo tune --lto
// thin|full --link CMD`, docs/tune.md "Under LTO"): a program's cost is the
// .text of the final artifact the user's own link command makes from the
// LTO compile steps' bitcode, with mlgo's plugin in the link's inliner and
// the decisions in the compile steps and the link. measure() compiles as
// SizeObjective does (the trajectory, each module's object) and hands the
// policy on (LtoPolicy); delta() runs the LTO compile steps it changes
// (`clang-19 -cc1 -flto=... -emit-llvm-bc` with the plugin, each cached in
// W/lto/bc by its module and policy) and the link. A ThinLTO link keeps
// lld's cache (-Wl,--thinlto-cache-dir, W/lto/cache-*), so a try
// recompiles only the backends of the modules it changed and of those
// that import from them; a full LTO link compiles the merged module every
// time. The link is keyed by its inputs and linked once per key. The cost
// per try, measured on tinyxml2 and cjson, is in docs/lab/2026-12-03.md, lto3.
//
// What the ThinLTO cache cannot see: lld keys a backend by the bitcode of
// its module and of the modules it imports from, not by -mllvm options. The
// decisions file given to the link changes only with the entries of a
// module whose compile step applied them, and that compile step records
// the entries it applied in its bitcode (!mlgo.used, docs/decisions.md
// "LTO"), so each key still names one result.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_LTOOBJECTIVE_H
#define MLGO_TUNE_LTOOBJECTIVE_H

#include "mlgo/Support/LtoMode.h"
#include "mlgo/Tune/Objective.h"
#include "mlgo/Tune/SizeObjective.h"

#include <map>
#include <string>
#include <vector>

namespace mlgo {

class CompileService;

/// The policy a measurement of LtoObjective was made under (its Detail).
struct LtoPolicy final : MeasurementDetail {
  explicit LtoPolicy(CompilePolicy P) : Policy(std::move(P)) {}
  CompilePolicy Policy;
};

/// How LtoObjective builds a program's final artifact.
struct LtoSetup {
  LtoMode Mode = LtoMode::Thin;
  /// A shell command that links the bitcode files in $MLGO_OBJECTS (one
  /// per module of the program, named as the module, .o added if it has
  /// none, in the module's directories) into
  /// $MLGO_PROGRAM, with the words of $MLGO_LTO_FLAGS among its link flags.
  std::string Link;
  /// NAME=VALUE words added to the link's environment.
  std::vector<std::string> LinkEnv;
  /// The link's name in errors: "--link", or a recipe's lto_link.
  std::string LinkSource = "--link";
  /// Where the compile steps, the caches and the link go (W/lto).
  std::string WorkDir;
  /// mlgo's plugin and the ld.lld that loads it (lib/mlgo/lld/ld.lld).
  std::string PluginPath, LdPath;
  std::string Clang = "clang-19";
  unsigned TimeoutSeconds = 300;
};

class LtoObjective final : public Objective {
public:
  /// A program's module: its corpus index and its unit's key (its module
  /// in a decisions file).
  struct Slot {
    size_t Module;
    std::string Key;
  };
  /// \p Base: the model's policy (the search's start); \p Stock: as
  /// SizeObjective's; \p Programs: each program's slots.
  LtoObjective(CompileService &S, LtoSetup Setup, CompilePolicy Base,
               std::vector<CompileOutcome> Stock,
               std::vector<std::vector<Slot>> Programs);

  /// Links every program with each module's compile step under the model
  /// (cost() then answers it) and with stock clang-19 and ld.lld-19;
  /// returns the stock sizes.
  llvm::Expected<std::vector<uint64_t>> start();

  llvm::Expected<std::vector<Measurement>>
  measure(llvm::ArrayRef<Trial> Trials, llvm::StringRef What,
          bool WithTrajectory = true) override;
  int64_t delta(size_t Program,
                llvm::ArrayRef<SlotChange> Changes) const override;
  void apply(size_t Program, llvm::ArrayRef<SlotChange> Changes) override;
  uint64_t cost(size_t Program) const override {
    return Programs[Program].Cost;
  }
  llvm::Error takeError() override;

  /// The links run so far (not those answered by an earlier link's key).
  size_t getLinks() const { return Links; }

private:
  struct ProgramState {
    std::vector<Slot> Slots;
    /// Per slot, the policy of its compile step now.
    std::vector<CompilePolicy> Policies;
    uint64_t Cost = 0;
  };
  /// The policies of \p Program's slots with \p Changes made; an error
  /// for a change without an LtoPolicy.
  llvm::Expected<std::vector<CompilePolicy>>
  withChanges(size_t Program, llvm::ArrayRef<SlotChange> Changes) const;
  /// The compile step of corpus module \p Module under \p P (stock:
  /// without the plugin) with the decisions of unit \p Key: its bitcode
  /// file in W/lto/bc, compiled unless it is there.
  llvm::Expected<std::string> compileStep(size_t Module, const CompilePolicy &P,
                                          bool Stock) const;
  /// The .text of \p Program's final artifact with its slots compiled
  /// under \p Policies (stock: no plugin anywhere).
  llvm::Expected<uint64_t> link(size_t Program,
                                llvm::ArrayRef<CompilePolicy> Policies,
                                bool Stock) const;

  SizeObjective Sizes;
  CompileService &S;
  const LtoSetup Setup;
  const CompilePolicy Base;
  std::vector<ProgramState> Programs;
  /// Each link's .text by the key of its inputs.
  mutable std::map<std::string, uint64_t> Linked;
  mutable size_t Links = 0;
  mutable std::string FirstError;
};

} // namespace mlgo

#endif // MLGO_TUNE_LTOOBJECTIVE_H

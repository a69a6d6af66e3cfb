//===- mlgo/Tune/ProgramDecisions.h - linkonce_odr decided once -*- C++ -*-===//
//
// A C++ inline function or template instantiation is emitted linkonce_odr,
// in a COMDAT group, by every module that uses it; the linker keeps one
// copy, the first object's in link order, and drops the others. Its
// inlining decisions (the sites whose caller it is) are decided for the
// program: a decisions file's 'program' section holds them once, and the
// plugin applies them in every module that defines the function
// linkonce_odr, where the module's own entries do not fix the site
// (docs/decisions.md, docs/tune.md "Whole-program decisions").
//
// hoistLinkOnceDecisions turns the per-module entries `mlgo tune` searched
// into that form without changing any compile: the program's entries for
// a function are the decisions of its first copy (the one the linker keeps
// when the function survives in that object), and every other copy keeps a
// module entry only where its decision differs or the program has none.
// A module that asks a site of the function then gets, from its entries or
// the program's, the decision it took in the search, so it compiles to the
// same object. That needs the module's complete trajectory: a function is
// hoisted only when every module that defines it linkonce_odr is exact
// (its trajectory is the compile the file must reproduce), and only when
// some module's entries name one of its sites (a function no module has
// entries for stays the model's to decide, and the file does not grow).
//
// Value code over names and decisions (unittests/Tune/ProgramDecisionsTest
// .cpp); getLinkOnceODRFunctions reads bitcode.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_PROGRAMDECISIONS_H
#define MLGO_TUNE_PROGRAMDECISIONS_H

#include "mlgo/Inline/Decisions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mlgo {

/// The names of the functions the bitcode file \p Path defines with
/// linkonce_odr linkage. Errors name the file.
llvm::Expected<llvm::StringSet<>> getLinkOnceODRFunctions(llvm::StringRef Path);

/// One module of a program, in link order, as hoisting sees it.
struct ProgramModule {
  /// The module's entries as the decisions file would hold them; rewritten
  /// by hoistLinkOnceDecisions.
  ModuleDecisions Entries;
  /// The decisions its compile with Entries took, in order.
  std::vector<DecidedSite> Trajectory;
  /// The functions it defines linkonce_odr.
  llvm::StringSet<> LinkOnceODR;
  /// Whether Trajectory is exactly the compile the file must reproduce
  /// (a source compiled into one object); a function an inexact module
  /// defines is not hoisted.
  bool Exact = false;
};

/// What hoisting did.
struct HoistStats {
  /// Functions decided once, the program's entries, the module entries
  /// removed because the program's entry decides the same, and those added
  /// where a module without an entry for a site took another decision than
  /// the program's.
  size_t Functions = 0, ProgramEntries = 0, Removed = 0, Added = 0;
};

/// Moves the decisions at sites of linkonce_odr callers into the program's
/// entries (returned), rewriting \p Modules' entries so that every module
/// compiles as its trajectory says; see the file comment.
ModuleDecisions
hoistLinkOnceDecisions(llvm::MutableArrayRef<ProgramModule> Modules,
                       HoistStats *Stats = nullptr);

/// The entries the plugin applies in a module: \p Entries, then the
/// program's entries whose caller is in \p LinkOnceODR and whose site
/// \p Entries does not fix (by a site entry or its callee's group entry).
ModuleDecisions expandForModule(const ModuleDecisions &Entries,
                                const ModuleDecisions &Program,
                                const llvm::StringSet<> &LinkOnceODR);

/// The forms of a program's decisions file `mlgo tune` can write, the
/// preferred first: the whole-program entries (hoistLinkOnceDecisions),
/// each module's own entries as searched, or no entries (the model's build).
enum class FileForm { WholeProgram, PerModule, NoEntries };

/// Whether the per-module form must be measured as well: the file has
/// program entries and its final check measured \p Whole bytes, more than
/// the search's own result \p Searched or the model's build \p Model.
/// Without LTO the two forms compile the same objects; under ThinLTO a
/// function decided once can link larger than its copies decided apart.
bool mustCheckPerModule(bool HasProgramEntries, uint64_t Whole,
                        uint64_t Searched, uint64_t Model);

/// The form to write and its size: the smallest of \p Whole, \p PerModule
/// (when measured) and \p Model (no entries), the preferred on a tie, so
/// that the file written never measures more than the model's build.
std::pair<FileForm, uint64_t> chooseFileForm(uint64_t Whole,
                                             std::optional<uint64_t> PerModule,
                                             uint64_t Model);

} // namespace mlgo

#endif // MLGO_TUNE_PROGRAMDECISIONS_H

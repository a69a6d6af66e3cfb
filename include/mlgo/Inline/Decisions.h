//===- mlgo/Inline/Decisions.h - Inlining decisions per call site -*- C++
//-*-===//
//
// A decisions file fixes inlining decisions at named call sites: what
// `mlgo tune` writes and what the plugin applies with -mlgo-decisions=FILE.
// The format is documented byte by byte in docs/decisions.md; in short, a
// text file of lines:
//
//   mlgo-decisions 2                      the first line (after comments)
//   meta <key> <value...>                 metadata, before the first module
//   program                               starts the program's entries
//   module <source path>                  starts a module's entries
//   inline <caller> <callee> <ordinal>    fixes one call site
//   no-inline <caller> <callee> <ordinal>
//   inline * <callee> *                   fixes every call of <callee> in
//   no-inline * <callee> *                the module that no site entry fixes
//   evict <function> <ordinal> <hash> <column>
//                                         fixes one eviction decision (speed
//                                         files: 'meta objective speed')
//   end <entries>                         the last line: the number of
//                                         inline, no-inline and evict lines
//
// The end line tells a whole file from one cut at a line boundary (an
// error naming the file). Version 1 files (before 2026-12-02) have none
// and are read as before, so a cut one cannot be told from a whole one;
// print() writes version 2. A line ending in CR LF is an error saying so.
// A call site is named by its caller, its callee and its ordinal: the
// number of policy decisions the inliner asked before it for the same
// caller and callee in that module, from 0. Names are LLVM symbol names
// (mangled for C++); a byte that is a space, a control character, '%', '*'
// or not ASCII is written as %XX. Blank lines and lines starting with '#'
// are comments.
//
// The program's entries (site entries only, before the first module) fix
// the sites whose caller is a linkonce_odr function (a C++ inline function
// or template instantiation, which the linker keeps once), in every module
// that defines it, where the module's own entries do not fix the site.
//
// A module's key is its source path as the compiler records it (the IR's
// source_filename), shortened by `mlgo tune` so that it does not depend on
// the directory the program was built in; a compile of source S uses the
// entries of the longest key that is S or a trailing part of S made of
// whole path components.
//
// This header and Decisions.cpp need LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_DECISIONS_H
#define MLGO_INLINE_DECISIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// The version DecisionsFile::print() writes; parse() reads it and 1.
inline constexpr unsigned DecisionsFormatVersion = 2;

/// One entry: a call site's decision, or (Caller empty) the decision for
/// every call of Callee that no site entry fixes.
struct SiteDecision {
  std::string Caller;
  std::string Callee;
  uint32_t Ordinal = 0;
  bool Inline = false;
  /// The line of the file it was read from (0: not read from a file), for
  /// the plugin's diagnostics; not part of the entry's identity.
  unsigned Line = 0;

  bool isGroup() const { return Caller.empty(); }
  bool operator==(const SiteDecision &O) const {
    return Caller == O.Caller && Callee == O.Callee && Ordinal == O.Ordinal &&
           Inline == O.Inline;
  }
};

/// An eviction entry: the answer at one eviction decision of a function's
/// register allocation. The decision is the \p Ordinal-th question (from 0)
/// LLVM's greedy allocator asked while allocating \p Function; \p Hash is
/// the EvictionHash of the features it sent with it, so that an entry whose
/// decision changed is stale rather than applied to another decision;
/// \p Column is the answer (0-31: evict that register's interference; 32:
/// evict nothing).
struct EvictDecision {
  std::string Function;
  uint32_t Ordinal = 0;
  uint64_t Hash = 0;
  uint32_t Column = 0;
  /// The line of the file it was read from (0: not read from a file), for
  /// the plugin's diagnostics; not part of the entry's identity.
  unsigned Line = 0;

  bool operator==(const EvictDecision &O) const {
    return Function == O.Function && Ordinal == O.Ordinal && Hash == O.Hash &&
           Column == O.Column;
  }
};

/// The hash an eviction entry carries: 64-bit FNV-1a over the bytes of
/// every feature tensor LLVM sent with the decision, in the order of LLVM's
/// header (docs/decisions.md, "Eviction decisions").
class EvictionHash {
public:
  void add(llvm::StringRef Bytes) {
    for (unsigned char C : Bytes) {
      H ^= C;
      H *= 1099511628211ULL;
    }
  }
  uint64_t get() const { return H; }

private:
  uint64_t H = 14695981039346656037ULL;
};

/// The entries of one module.
struct ModuleDecisions {
  std::string Module;
  std::vector<SiteDecision> Sites;
  /// Eviction entries, only in files for speed.
  std::vector<EvictDecision> Evictions;

  /// Sorts the entries (group entries first, then by caller, callee and
  /// ordinal), the order print() writes them in.
  void sort();
  /// Adds \p D, replacing an entry for the same site (or the same callee's
  /// group).
  void set(const SiteDecision &D);
  /// Adds \p D, replacing an entry for the same decision.
  void setEviction(const EvictDecision &D);
  /// The inlining entries in the file's syntax, without the module line.
  std::string printSites() const;
  /// The eviction entries in the file's syntax (sorted by function and
  /// ordinal).
  std::string printEvictions() const;
};

/// Looks eviction entries up by decision; what the plugin holds for one
/// module's code generation.
class EvictionTable {
public:
  explicit EvictionTable(std::shared_ptr<const ModuleDecisions> Entries);
  /// The answer fixed at decision \p Ordinal of \p Function, if an entry
  /// names that decision and its hash is \p Hash; marks the entry used. An
  /// entry with another hash fixes nothing (it is stale).
  std::optional<uint32_t> lookup(llvm::StringRef Function, uint32_t Ordinal,
                                 uint64_t Hash);
  /// The same, giving the entry itself (for its line), or null.
  const EvictDecision *lookupEntry(llvm::StringRef Function, uint32_t Ordinal,
                                   uint64_t Hash);
  /// Entries that fixed no decision so far.
  std::vector<EvictDecision> getUnused() const;
  size_t size() const { return Entries->Evictions.size(); }
  const ModuleDecisions &getEntries() const { return *Entries; }

private:
  std::shared_ptr<const ModuleDecisions> Entries;
  llvm::StringMap<size_t> Index;
  std::vector<bool> Used;
};

/// A decision as a compile took it: the site, the applied decision, the
/// model's logit (NaN when the source has none) and whether an entry of
/// the decisions in force fixed it.
struct DecidedSite {
  SiteDecision Site;
  float Logit = 0;
  bool Fixed = false;
  /// The decision's logged size score when the compile was asked for it
  /// (CompileJob::WantSizeScore; docs/ir2native.md, delta_size): the
  /// native bytes IR2Native predicts the decision saved, 0 for one that
  /// inlined nothing. NaN when not asked.
  float Score = std::numeric_limits<float>::quiet_NaN();
};

/// Every decision of trajectory \p T as a site entry of module \p Module:
/// the decisions file entries that reproduce \p T whatever the model
/// proposes.
ModuleDecisions fixAll(llvm::StringRef Module, llvm::ArrayRef<DecidedSite> T);

/// Looks entries up by call site; what the advisor holds for one compile.
class DecisionTable {
public:
  explicit DecisionTable(std::shared_ptr<const ModuleDecisions> Entries);
  /// The fixed decision for the site, if an entry fixes it: a site entry,
  /// else the callee's group entry. Marks the entry used.
  std::optional<bool> lookup(llvm::StringRef Caller, llvm::StringRef Callee,
                             uint32_t Ordinal);
  /// Entries that fixed no decision so far.
  std::vector<SiteDecision> getUnused() const;
  /// Entries that fixed a decision so far.
  std::vector<SiteDecision> getUsed() const;
  size_t size() const { return Entries->Sites.size(); }
  const ModuleDecisions &getEntries() const { return *Entries; }

private:
  std::shared_ptr<const ModuleDecisions> Entries;
  llvm::StringMap<size_t> Index;
  std::vector<bool> Used;
};

class DecisionsFile {
public:
  /// (key, value) in file order.
  std::vector<std::pair<std::string, std::string>> Meta;
  /// The line each metadata key was read from (parse() only), for the
  /// plugin's diagnostics.
  llvm::StringMap<unsigned> MetaLines;
  /// Sorted by key; keys unique.
  std::vector<std::shared_ptr<ModuleDecisions>> Modules;
  /// The 'program' section's site entries (Module empty), or null: the
  /// decisions at sites whose caller is a linkonce_odr function, for every
  /// module that defines it.
  std::shared_ptr<ModuleDecisions> Program;

  /// Parses \p Text; errors are "NAME:LINE: what is wrong".
  static llvm::Expected<DecisionsFile> parse(llvm::StringRef Text,
                                             llvm::StringRef Name);
  /// Reads and parses the file at \p Path.
  static llvm::Expected<DecisionsFile> load(llvm::StringRef Path);
  /// The file's text: a comment line, the header, the metadata, then the
  /// modules in key order with their entries sorted.
  std::string print() const;
  /// The value of metadata \p Key, or "".
  llvm::StringRef getMeta(llvm::StringRef Key) const;
  /// The line metadata \p Key was read from, or 0.
  unsigned getMetaLine(llvm::StringRef Key) const {
    return MetaLines.lookup(Key);
  }
  /// Whether the file was written for speed builds (-O1/-O2/-O3, 'meta
  /// objective speed') rather than for size (-Os/-Oz, the default).
  bool isForSpeed() const { return getMeta("objective") == "speed"; }
  void setMeta(llvm::StringRef Key, llvm::StringRef Value);
  /// The entries for a compile of source \p SourcePath, or null.
  std::shared_ptr<const ModuleDecisions> find(llvm::StringRef SourcePath) const;
  /// Adds a module (replacing one with the same key) and keeps the order.
  void addModule(ModuleDecisions M);
};

/// The `model` metadata of a file for speed whose eviction entries are
/// relative to the eviction model in file \p ModelPath: `file <path> (md5
/// <MD5 of the file's bytes, 32 lower-case hex digits>)`, or `embedded` for
/// an empty \p ModelPath (the model built into the plugin). Errors name
/// the model file.
llvm::Expected<std::string> getEvictionModelMeta(llvm::StringRef ModelPath);
/// The MD5 of the model file the plugin's embedded eviction model was
/// built from (models/regalloc-evict/model.json; mlgo/Config.h).
llvm::StringRef getEmbeddedEvictionModelMD5();
/// Whether the eviction entries of \p F (read from \p FilePath) may apply
/// in a compile whose eviction model is \p ModelPath (empty: the embedded
/// one): the file has no eviction entries, or its `model` metadata names a
/// model with the same bytes, by their MD5. `embedded` (or no metadata)
/// and an empty \p ModelPath stand for \p EmbeddedMD5, the MD5 of the file
/// the plugin's embedded model was built from (mlgo/Config.h). Otherwise
/// an error naming the decisions file (and the line of its `meta model`,
/// when it was read from text) and both models (docs/decisions.md,
/// "Eviction decisions").
llvm::Error checkDecisionsModel(const DecisionsFile &F,
                                llvm::StringRef FilePath,
                                llvm::StringRef ModelPath,
                                llvm::StringRef EmbeddedMD5);

/// \p Path with "." and ".." components resolved lexically and separators
/// made single; the form keys are compared in.
std::string normalizeSourcePath(llvm::StringRef Path);
/// The source path of a compile as the decisions file is searched with: a
/// relative \p SourcePath (the IR's source_filename, as the build passed
/// it) joined to the directory the compiler ran in, \p CompileDir (unless
/// empty), then normalized. So "compress/x.c" compiled in /p/lib and
/// "../lib/compress/x.c" compiled in /p/programs are one source,
/// /p/lib/compress/x.c, and one key.
std::string resolveSourcePath(llvm::StringRef SourcePath,
                              llvm::StringRef CompileDir);
/// Whether key \p Key names source \p SourcePath (both normalized): equal,
/// or a trailing part of it made of whole components.
bool sourceMatchesKey(llvm::StringRef SourcePath, llvm::StringRef Key);
/// The name a function of an LTO link had in its compile step: \p Name
/// without the suffixes the link adds, ThinLTO's promotion of an internal
/// function (".llvm.<digits>") and the IR linker's renaming of a clashing
/// internal one (".<digits>"). Source names have no '.' in C and C++.
llvm::StringRef getCompileStepName(llvm::StringRef Name);
/// A name written the file's way (%XX for the bytes listed in the file
/// comment), and back: decodeName sets \p Name and returns true, or returns
/// false for a '%' not followed by two hex digits.
std::string encodeName(llvm::StringRef Name);
bool decodeName(llvm::StringRef Field, std::string &Name);

} // namespace mlgo

#endif // MLGO_INLINE_DECISIONS_H

//===- mlgo/Corpus/Extract.h - Corpus extraction from objects ---*- C++ -*-===//
//
// Builds a corpus (see CorpusDescription.h) from the objects of a build made
// with clang and `-Xclang -fembed-bitcode=all`: each object carries its
// pre-optimization module in the .llvmbc section and its cc1 arguments in
// .llvmcmd. Sections are read with LLVM's Object library (no objcopy).
//
// The objects come from a compile_commands.json (each compile-only entry's
// output; the module is named after the output path relative to the entry's
// directory, or, where two such names collide, to the top of the build) or
// from a directory tree (every *.o, named relative to it).
// Extraction runs on a thread pool. Objects that cannot contribute are never
// dropped silently: each is reported with the reason (see SkipReason), in
// the result and in DIR/extraction_report.json, which also records, for each
// module, the object it came from and that object's .text size (what a
// replay must reproduce).
//
// A corpus holds each piece of code once: training must not see the same
// module twice. Builds compile one source several times (libtool's PIC
// `.libs/x.o` and non-PIC `x.o`, a static and a shared library target, a
// tool that recompiles the library's sources with its own defines), so
// extraction keeps, in input order, the first module of each source file and
// drops the others; it also drops a module whose bitcode is byte-identical to
// a kept one's (which catches repeats where the source is unknown, as with
// --objects). Dropped modules are listed with the reason and the module they
// duplicate (DroppedModule); they are not skipped objects, so they do not make
// the corpus partial.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_EXTRACT_H
#define MLGO_CORPUS_EXTRACT_H

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm::object {
class ObjectFile;
} // namespace llvm::object

namespace mlgo {

/// Name of the per-extraction record written next to the description.
inline constexpr llvm::StringLiteral ExtractionReportFileName =
    "extraction_report.json";

/// Why an object or a compile command contributed no module.
enum class SkipReason {
  NotACompile,      ///< the command does not compile to an object (no -c)
  MissingObject,    ///< the object file does not exist
  UnreadableObject, ///< not an object file LLVM can read
  LinkedBinary,     ///< an executable or shared library, not an object
  NoBitcode,        ///< no .llvmbc section (no -fembed-bitcode=all)
  NoCommand,        ///< .llvmbc but no .llvmcmd section
  Duplicate,        ///< same module name as an earlier object
  WriteFailed,      ///< the module files could not be written
};

llvm::StringRef getSkipReasonName(SkipReason R);

/// One object to extract and the module name it gets.
struct ObjectInput {
  std::string ObjectPath;
  std::string ModuleName;
  /// The compiled source file (absolute, normalized) when the compile
  /// command is known; empty for objects found in a directory.
  std::string SourcePath = {};
};

struct SkippedObject {
  std::string Path; ///< the object (or source file, for NotACompile)
  SkipReason Reason;
  std::string Detail;
};

/// Why a module read from an object was left out of the corpus.
enum class DropReason {
  IdenticalBitcode, ///< same .llvmbc bytes as a kept module
  SameSource,       ///< another compile of a kept module's source file
};

llvm::StringRef getDropReasonName(DropReason R);

struct DroppedModule {
  std::string Module;
  std::string ObjectPath;
  DropReason Reason;
  std::string KeptModule; ///< the module it duplicates
  std::string SourcePath; ///< may be empty
};

/// One line saying why \p D was dropped, e.g.
/// "x.o: same source file as .libs/x.o (/src/x.c)".
std::string describeDroppedModule(const DroppedModule &D);

/// Objects of the compile-only commands of a compile_commands.json; other
/// entries are appended to \p Skipped. A module is named after its object's
/// path relative to \p BaseDir when the object lies below it, else relative
/// to its entry's directory. Recursive makes compile in several
/// directories, whose `sds.o`s (redis's src/ and deps/hiredis/) or two
/// programs' `main.o`s would get one name that way: objects whose names
/// collide are named by their path from the top of the build instead -
/// \p BaseDir, or the deepest directory every entry's directory lies in -
/// and the other names stay as they are. The objects are sorted by module
/// name (a parallel build records compiles in no fixed order); of two
/// objects that still have one module name, the first by path is kept.
/// Fails only if the file is unreadable or not a compilation database.
llvm::Expected<std::vector<ObjectInput>>
readCompileCommands(llvm::StringRef Path, std::vector<SkippedObject> &Skipped,
                    llvm::StringRef BaseDir = "");

/// Every regular file named *.o under \p Dir, sorted, named relative to Dir.
/// With \p AnyName, every ELF relocatable object whatever its name (bzip2's
/// -fPIC objects are *.sho).
llvm::Expected<std::vector<ObjectInput>> findObjects(llvm::StringRef Dir,
                                                     bool AnyName = false);

/// The static libraries (files named *.a) under \p Dir, sorted, that hold
/// objects with embedded bitcode but no symbol table. GNU ar writes none for
/// such objects (its LTO plugin cannot read clang-19's bitcode), so a link
/// against the library fails with undefined references; llvm-ar-19 writes
/// it. Unreadable files are not archives here: the extraction reports the
/// objects themselves.
std::vector<std::string> findUnindexedBitcodeArchives(llvm::StringRef Dir);

/// The deepest directory that every one of \p Paths (absolute, normalized)
/// lies in or is; "/" when they share nothing else, "" for no paths.
std::string getCommonRoot(llvm::ArrayRef<std::string> Paths);

/// The embedded sections of one object.
struct EmbeddedModule {
  std::string Bitcode;
  std::string Command;
  uint64_t TextSize = 0;
};

/// Reads .llvmbc, .llvmcmd and the total size of the text sections.
/// On failure \p Reason says why.
llvm::Expected<EmbeddedModule> readEmbeddedModule(llvm::StringRef ObjectPath,
                                                  SkipReason &Reason);

// The code size of an object (getTextSize) is in mlgo/Corpus/CodeSize.h.

struct ExtractOptions {
  std::string OutputDir;
  /// Worker threads; 0 means one per hardware thread.
  unsigned Threads = 0;
  /// Called after each object (from worker threads, serialized).
  ProgressCallback Progress;
  /// Keep one module per source file and per bitcode content (see above).
  bool Deduplicate = true;
};

/// One extracted module: where it came from and its original .text size.
struct ExtractedModule {
  std::string Module;
  std::string ObjectPath;
  uint64_t TextSize = 0;
  uint64_t BitcodeSize = 0;
  std::string SourcePath = {};
};

struct ExtractResult {
  CorpusDescription Description;
  std::vector<ExtractedModule> Modules;
  std::vector<SkippedObject> Skipped;
  std::vector<DroppedModule> Dropped;
};

/// Extracts \p Objects into Options.OutputDir and writes the description and
/// the extraction report (including \p AlreadySkipped and the dropped
/// duplicates). Modules are listed, and duplicates resolved, in input order
/// whatever the thread count. Fails if the output directory cannot be
/// created or the description written.
llvm::Expected<ExtractResult>
extractCorpus(llvm::ArrayRef<ObjectInput> Objects,
              const ExtractOptions &Options,
              std::vector<SkippedObject> AlreadySkipped = {});

/// The modules recorded in DIR/extraction_report.json.
llvm::Expected<std::vector<ExtractedModule>>
readExtractionReport(llvm::StringRef Dir);

/// Writes Output/extraction_report.json for a combined corpus: the reports
/// of \p Inputs concatenated (modules, skipped objects, dropped duplicates),
/// with module names prefixed by \p Prefixes[I] and '/' (as combineCorpora
/// renames them). Returns false, writing nothing, if some input has no
/// report.
llvm::Expected<bool>
combineExtractionReports(llvm::ArrayRef<std::string> Inputs,
                         llvm::ArrayRef<std::string> Prefixes,
                         llvm::StringRef Output);

} // namespace mlgo

#endif // MLGO_CORPUS_EXTRACT_H

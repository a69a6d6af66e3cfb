//===- mlgo/Compile/CodegenMemo.h - Code sizes of functions, memoized -*- C++
//-*-===//
//
// A tune compiles one module hundreds of times, each try changing the
// inlining of a few call sites; yet code generation, half of a compile's
// instructions (lab 2026-12-03, kernel3), ran over every function every
// time. CodegenMemo remembers, per process, the bytes of machine code each
// function's optimized IR became, and the next compile of a module
// generates code only for the functions whose optimized IR it has not seen.
//
// The result must be the object's .text to the byte, padding included, so
// the memo never adds sizes up itself: a function it knows keeps its
// symbol, linkage, section, comdat, alignment and attributes, and its body
// becomes a placeholder, a naked function whose only instruction is the
// inline assembly ".skip N" (N its bytes). The module so reduced goes
// through the code generator and assembler as before: every function is
// laid out where it was, at its alignment, and every branch between them
// is relaxed over the same distances, so the object's executable sections
// have the sizes the whole compile gives. When the code generator does
// not verify the module (cc1's -disable-llvm-verifier, which the driver
// passes), a placeholder is also optnone and noinline, keeping optsize and
// minsize: the code generator's machine passes skip an optnone function
// and its instruction selection is the fast one, which placeholders made
// the cost of (tinyxml2: three quarters of a tune compile's code
// generation, lab 2026-12-06); optnone changes no byte of the symbol
// (checked below) nor its alignment (the code generator aligns a
// function by optsize, not by optnone). The verifier would reject optnone
// beside minsize, hence the condition. After the compile each
// placeholder's symbol must measure N (checked; a compile where one does
// not is done again without the memo), and every function compiled for
// real records its symbol's size under its key.
//
// A function's key is the MD5 of:
//   - the module's context: target triple, data layout, module flags,
//     module-level inline assembly, and the compile's cc1 arguments;
//   - the function printed alone in an empty module (its body, its own
//     linkage, attributes, alignment, section, comdat, and its metadata and
//     attribute groups numbered within it, so another function's change
//     does not renumber them);
//   - each global value its body or personality refers to: name, linkage,
//     visibility, dso_local, attributes, type, alignment, section, and a
//     constant variable's initializer.
// Functions whose code may depend on where they are placed are always
// compiled: a tail call to a local symbol (a static function: the
// assembler resolves that jump itself and may make it a short one over
// the distance between them; a jump to any other symbol keeps its
// relocation), inline assembly, a block whose address is taken, prefix
// or prologue data, sanitizer or patchable-entry instrumentation, and any
// function without minsize (block alignment inside it depends on its
// start address). So are private functions (no symbol to measure).
//
// MLGO_CODEGEN_MEMO=0 in the environment turns the memo off (benchmarks
// and the tests that compare both compiles).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_CODEGENMEMO_H
#define MLGO_COMPILE_CODEGENMEMO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlgo {

/// What the memo did in this process (reportCodegenMemoStats()).
struct CodegenMemoStats {
  uint64_t Compiles = 0;
  /// Defined functions seen, and those a placeholder stood for.
  uint64_t Functions = 0, Reused = 0;
  /// Compiles done again because a placeholder did not measure its size.
  uint64_t Mismatches = 0;
  /// CPU seconds (the process's) spent keying functions and making
  /// placeholders.
  double KeySeconds = 0;
};

class CodegenMemo {
public:
  /// What prepare() did to a module, for finish().
  struct Plan {
    /// Functions compiled for real whose size is to be recorded: (symbol
    /// name, key).
    std::vector<std::pair<std::string, std::string>> Record;
    /// Functions a placeholder stands for: (symbol name, bytes).
    std::vector<std::pair<std::string, uint64_t>> Placeholders;
  };

  /// Replaces the body of every function of the optimized module \p M
  /// whose key the memo knows by its placeholder. \p CC1Args: the
  /// compile's arguments (part of every key). \p Unverified: the code
  /// generator will not verify the module, so placeholders may be optnone.
  Plan prepare(llvm::Module &M, llvm::ArrayRef<std::string> CC1Args,
               bool Unverified = false);

  /// After the compile of the module \p P was made for: whether every
  /// placeholder measured its bytes in \p Object (if not, the object is not
  /// the module's and nothing is recorded); records the others' sizes.
  llvm::Expected<bool> finish(const Plan &P, llvm::MemoryBufferRef Object);

  size_t size() const { return Sizes.size(); }
  const CodegenMemoStats &getStats() const { return Stats; }

private:
  /// Compiles on several threads of a process share the memo.
  std::mutex Mutex;
  llvm::StringMap<uint64_t> Sizes;
  CodegenMemoStats Stats;
};

/// Whether compiles in this process use the memo (MLGO_CODEGEN_MEMO is not
/// "0").
bool isCodegenMemoEnabled();

/// The memo of this process (each worker of a pool has its own).
CodegenMemo &getProcessCodegenMemo();

/// Prints getProcessCodegenMemo()'s statistics on stderr when
/// MLGO_CODEGEN_MEMO_STATS is set (a worker of the pool, as it ends).
void reportCodegenMemoStats();

} // namespace mlgo

#endif // MLGO_COMPILE_CODEGENMEMO_H

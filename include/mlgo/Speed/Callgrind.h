//===- mlgo/Speed/Callgrind.h - Executed instructions, measured -*- C++ -*-===//
//
// What the speed tools measure a program with: a command (a benchmark, a
// workload) run under valgrind's callgrind, following children, and the
// instructions executed by the processes whose program lies in one
// directory tree (the build's or the linked program's; the shells and
// tools of the command are not counted). Callgrind counts are a function
// of the program and its input, so two runs of one build agree to the
// instruction: the measure the tools decide on. Wall-clock time is
// reported beside, never decided on (it is noisy on a shared machine).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_CALLGRIND_H
#define MLGO_SPEED_CALLGRIND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {
namespace speed {

/// What one run of a command under callgrind executed in one tree's
/// programs.
struct CallgrindRun {
  uint64_t Instructions = 0;
  /// The tree's programs that ran, relative to it, sorted.
  std::vector<std::string> Programs;
};

/// Runs \p Argv under callgrind, following children, one log per process
/// in \p LogDir (-v: the log names the program's file; the command's
/// stdout and stderr go to LogDir/output.txt), and sums the executed
/// instructions of the processes whose program lies under \p Tree. With
/// \p DumpInstructions, each process also writes its costs per instruction
/// (--dump-instr=yes) to LogDir/PID.callgrind, for
/// readObjectInstructionCounts().
/// Instructions are counted from main on (--toggle-collect=main): the
/// dynamic loader's and libc's start-up depend on the environment and the
/// program's path (17 instructions of 135,000 for a longer directory
/// name), main's work on the program and its input only. Errors (named by
/// \p Name): the command failed, or ran no program of the tree, or a
/// program of the tree ended before callgrind counted anything in main.
llvm::Expected<CallgrindRun>
runCallgrind(llvm::StringRef Name, llvm::ArrayRef<std::string> Argv,
             const std::string &Tree, const std::string &LogDir,
             unsigned TimeoutSeconds, bool DumpInstructions = false);

/// The error of a benchmark (named by \p Name) run under callgrind whose
/// logs in \p LogDir, and output \p Out, could not be written: a full
/// disk or a file size limit (describeNoRoom()); std::nullopt if nothing
/// shows that. Its logs are then cut or missing, and what they say is not
/// what the run did, so this reason comes before any other.
std::optional<llvm::Error> benchmarkNoRoom(llvm::StringRef Name,
                                           const std::string &LogDir,
                                           const std::string &Out);

/// How often each instruction of one program ran, read from a callgrind
/// output file written with --dump-instr=yes (so that costs are kept per
/// instruction address): address (as in the program's ELF, which is how
/// callgrind writes it, position-independent or not) -> executed count
/// (Ir). Costs of the program's own code only: other objects (libc, the
/// loader) are left out. The file may use callgrind's name and position
/// compression and hold several parts (dumps), which are summed. What
/// callgrind promises is checked: each part's self costs (over every object)
/// add up to its `totals:` line (and its `summary:` line, if any), and the
/// costs of the last part are followed by one, so a file cut at a line
/// boundary or edited is an error, never a smaller count. Errors name
/// \p Path: unreadable, not written with --dump-instr=yes, no Ir event, a
/// malformed line (with its number), "line N: its totals line says T
/// instructions ran, its cost lines add up to S (a cut or edited file?)"
/// (the same for summary), "the file ends before the totals line that
/// follows the costs of a part: a file cut short (...)", or no cost of
/// \p Program.
llvm::Expected<std::vector<std::pair<uint64_t, uint64_t>>>
readInstructionCounts(llvm::StringRef Path, llvm::StringRef Program);

/// The same for every object of a run that \p Wanted accepts (by the name
/// callgrind gives it: the path the program or library was loaded from),
/// e.g. the programs and shared libraries of one build tree: object name ->
/// its sorted (address, count) pairs. Objects of which nothing ran are
/// left out; none at all is not an error here.
llvm::Expected<
    std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>>>
readObjectInstructionCounts(llvm::StringRef Path,
                            llvm::function_ref<bool(llvm::StringRef)> Wanted);

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_CALLGRIND_H

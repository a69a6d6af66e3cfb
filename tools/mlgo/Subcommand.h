//===- tools/mlgo/Subcommand.h - mlgo's subcommand registry -----*- C++ -*-===//
//
// Each subcommand of the mlgo tool lives in its own file, defines its options
// with cl::sub(TheSubCommand), and registers its entry point with a static
// RegisterSubcommand object. Two-word commands ("log dump") are ordinary
// cl::SubCommands whose name contains a space: the driver joins argv[1] and
// argv[2] when that names a registered command, so `mlgo log dump --help`
// prints the options of "log dump" alone. The first word names a command
// group ("log"), which its file registers once with a RegisterGroup object
// and a one-line description: `mlgo --help` lists the groups and the
// one-word commands, `mlgo log --help` lists the group's actions, and a
// missing or unknown action is an error that lists them.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TOOLS_SUBCOMMAND_H
#define MLGO_TOOLS_SUBCOMMAND_H

#include "mlgo/Speed/CostKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace mlgo::tool {

using SubcommandMain = int (*)();

struct RegisterSubcommand {
  RegisterSubcommand(llvm::cl::SubCommand &Cmd, SubcommandMain Main);
};

/// Registers a command group, the first word of two-word subcommands, with
/// the one-line description `mlgo --help` prints for it. Every group of a
/// registered two-word subcommand must be registered.
struct RegisterGroup {
  RegisterGroup(llvm::StringRef Name, llvm::StringRef Description);
};

/// The shared cl::OptionCategory for all subcommand options, so --help shows
/// the subcommand's options and not LLVM's.
llvm::cl::OptionCategory &getToolCategory();

/// Prints "mlgo: error: <message>" to stderr and returns 1, the exit status
/// of a failed subcommand.
int fail(llvm::Error E);
int fail(const llvm::Twine &Message);

/// The error for a word option given a word it does not take:
/// "--<Option> must be 'a', 'b' or 'c', not '<Value>'".
llvm::Error wordError(llvm::StringRef Option, llvm::StringRef Value,
                      llvm::ArrayRef<llvm::StringRef> Words);

/// The value of a word option (--predict off|rank|skip): the entry of
/// \p Words named \p Value, or wordError().
template <typename T>
llvm::Expected<T>
parseWord(llvm::StringRef Option, llvm::StringRef Value,
          std::initializer_list<std::pair<llvm::StringRef, T>> Words) {
  std::vector<llvm::StringRef> Names;
  for (const auto &[Name, Meaning] : Words) {
    if (Name == Value)
      return Meaning;
    Names.push_back(Name);
  }
  return wordError(Option, Value, Names);
}

/// What --cost means for a speed table (eval package, eval build and tune
/// build's evaluation), after the option's own condition.
inline const std::string CostTableHelp =
    "what the speed table measures the benchmark by beside the reward: "
    "'instructions' (executed, under callgrind, and paired wall-clock runs; "
    "the default), 'cycles' (callgrind's cache and branch simulation "
    "weighted into cycles as well) or 'time' (both builds timed as mlgo "
    "bench does, until --max-runs, instead of the wall-clock runs)";

/// --cost's word (tune's workload check, eval's and tune build's speed
/// tables) as a speed::CostKind.
inline llvm::Expected<speed::CostKind> parseCost(llvm::StringRef Word) {
  return parseWord<speed::CostKind>(
      "cost", Word,
      {{"instructions", speed::CostKind::Instructions},
       {"cycles", speed::CostKind::Cycles},
       {"time", speed::CostKind::Time}});
}

/// Prints what `mlgo --version` prints: mlgo's version and git commit, the
/// LLVM it runs on and was built against, and its embedded models with the
/// MD5 of each model.json (Version.cpp).
void printVersion(llvm::raw_ostream &OS);

} // namespace mlgo::tool

#endif // MLGO_TOOLS_SUBCOMMAND_H

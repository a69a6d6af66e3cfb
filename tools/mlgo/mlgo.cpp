//===- tools/mlgo/mlgo.cpp - The mlgo command-line driver -----------------===//
//
// One binary, many subcommands (see Subcommand.h). This file only dispatches:
// it joins two-word command names, parses the command line and calls the
// selected subcommand's entry point.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;

namespace mlgo::tool {

static StringMap<std::pair<cl::SubCommand *, SubcommandMain>> &getRegistry() {
  static StringMap<std::pair<cl::SubCommand *, SubcommandMain>> Registry;
  return Registry;
}

RegisterSubcommand::RegisterSubcommand(cl::SubCommand &Cmd,
                                       SubcommandMain Main) {
  getRegistry()[Cmd.getName()] = {&Cmd, Main};
}

cl::OptionCategory &getToolCategory() {
  static cl::OptionCategory Category("mlgo options");
  return Category;
}

int fail(Error E) { return fail(toString(std::move(E))); }

int fail(const Twine &Message) {
  WithColor::error(errs(), "mlgo") << Message << "\n";
  return 1;
}

} // namespace mlgo::tool

using namespace mlgo::tool;

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  auto &Registry = getRegistry();

  // Join "group action" into the registered two-word name.
  std::vector<std::string> Storage(argv, argv + argc);
  if (Storage.size() >= 3 &&
      Registry.count(Storage[1] + " " + Storage[2])) {
    Storage[1] += " " + Storage[2];
    Storage.erase(Storage.begin() + 2);
  } else if (Storage.size() >= 2 && !Registry.count(Storage[1])) {
    // A bare group name ("mlgo log"): list its actions.
    std::vector<StringRef> Actions;
    for (const auto &Entry : Registry)
      if (Entry.getKey().starts_with(Storage[1] + " "))
        Actions.push_back(Entry.getKey());
    if (!Actions.empty()) {
      llvm::sort(Actions);
      errs() << "mlgo " << Storage[1] << ": missing action; one of:\n";
      for (StringRef A : Actions)
        errs() << "  mlgo " << A << "  -  "
               << Registry[A].first->getDescription() << "\n";
      return 1;
    }
  }
  std::vector<const char *> Args;
  for (const std::string &S : Storage)
    Args.push_back(S.c_str());

  cl::HideUnrelatedOptions(getToolCategory());
  cl::ParseCommandLineOptions(
      Args.size(), Args.data(),
      "mlgo - machine-learning-guided optimization for stock LLVM 19\n\n"
      "  Run 'mlgo <command> --help' for the options of one command.\n");

  for (auto &Entry : Registry)
    if (*Entry.getValue().first)
      return Entry.getValue().second();

  WithColor::error(errs(), "mlgo")
      << "no command given; run 'mlgo --help' for the list\n";
  return 1;
}

//===- tools/mlgo/mlgo.cpp - The mlgo command-line driver -----------------===//
//
// One binary, many subcommands (see Subcommand.h). This file only dispatches:
// it answers `mlgo --help` and `mlgo <group> --help` with the lists of
// commands and actions, rejects a missing or unknown command or action with
// the same list, joins two-word command names, parses the command line and
// calls the selected subcommand's entry point. A subcommand's own --help is
// LLVM's, from its cl::opts; --version is mlgo's (Version.cpp).
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Distributed/Cluster.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <string>
#include <vector>

using namespace llvm;

namespace mlgo::tool {

namespace {

struct Command {
  cl::SubCommand *Cmd;
  SubcommandMain Main;
};

/// One line of a help list: a command, group or action and what it does.
struct HelpEntry {
  StringRef Name;
  StringRef Description;
};

} // namespace

static StringMap<Command> &getCommands() {
  static StringMap<Command> Commands;
  return Commands;
}

static StringMap<std::string> &getGroups() {
  static StringMap<std::string> Groups;
  return Groups;
}

RegisterSubcommand::RegisterSubcommand(cl::SubCommand &Cmd,
                                       SubcommandMain Main) {
  getCommands()[Cmd.getName()] = {&Cmd, Main};
}

RegisterGroup::RegisterGroup(StringRef Name, StringRef Description) {
  getGroups()[Name] = Description.str();
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

Error wordError(StringRef Option, StringRef Value, ArrayRef<StringRef> Words) {
  std::string List;
  for (size_t I = 0; I < Words.size(); ++I)
    List += (I == 0                  ? "'"
             : I + 1 == Words.size() ? " or '"
                                     : ", '") +
            Words[I].str() + "'";
  return createStringError(inconvertibleErrorCode(),
                           "--%s must be %s, not '%s'", Option.str().c_str(),
                           List.c_str(), Value.str().c_str());
}

/// The actions of \p Group, or for an empty \p Group the tool's groups and
/// one-word commands, sorted by name.
static std::vector<HelpEntry> getHelpEntries(StringRef Group) {
  std::vector<HelpEntry> Entries;
  if (Group.empty())
    for (const auto &G : getGroups())
      Entries.push_back({G.getKey(), G.getValue()});
  for (const auto &C : getCommands()) {
    auto [First, Action] = C.getKey().split(' ');
    assert((Action.empty() || getGroups().count(First) ||
            getCommands().count(First)) &&
           "a two-word command's first word needs a RegisterGroup or a "
           "command");
    assert((!Action.empty() || !getGroups().count(First)) &&
           "a one-word command cannot also name a group");
    StringRef Description = C.getValue().Cmd->getDescription();
    if (Group.empty() && Action.empty())
      Entries.push_back({First, Description});
    else if (!Group.empty() && First == Group)
      Entries.push_back({Action, Description});
  }
  llvm::sort(Entries, [](const HelpEntry &A, const HelpEntry &B) {
    return A.Name < B.Name;
  });
  return Entries;
}

/// Prints "  name - description" lines, the names padded to one width as in
/// LLVM's own list of subcommands.
static void printHelpEntries(raw_ostream &OS, StringRef Group) {
  std::vector<HelpEntry> Entries = getHelpEntries(Group);
  size_t Width = 0;
  for (const HelpEntry &E : Entries)
    Width = std::max(Width, E.Name.size());
  for (const HelpEntry &E : Entries)
    OS << "  " << left_justify(E.Name, Width) << " - " << E.Description << "\n";
}

static void printToolHelp(raw_ostream &OS) {
  OS << "OVERVIEW: mlgo - machine-learning-guided optimization for stock "
        "LLVM 19\n\n"
        "USAGE: mlgo <command> [<action>] [options]\n\n"
        "COMMANDS:\n";
  printHelpEntries(OS, "");
  OS << "\nRun 'mlgo <command> --help' for a command's actions or options.\n";
}

static void printGroupHelp(raw_ostream &OS, StringRef Group) {
  OS << "OVERVIEW: mlgo " << Group << " - " << getGroups()[Group] << "\n\n"
     << "USAGE: mlgo " << Group << " <action> [options]\n\n"
     << "ACTIONS:\n";
  printHelpEntries(OS, Group);
  OS << "\nRun 'mlgo " << Group
     << " <action> --help' for the options of one action.\n";
}

/// Prints "mlgo: error: <message>; one of:" and the list of \p Group's
/// actions (of the tool's commands for an empty \p Group); returns 1.
static int failWithList(const Twine &Message, StringRef Group) {
  WithColor::error(errs(), "mlgo") << Message << "; one of:\n";
  printHelpEntries(errs(), Group);
  return 1;
}

static bool isHelpFlag(StringRef Arg) {
  return Arg == "--help" || Arg == "-help";
}

} // namespace mlgo::tool

using namespace mlgo::tool;

static int runCommand(const std::vector<std::string> &Storage);

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // Under a file size limit (ulimit -f), a write past it raises SIGXFSZ,
  // which kills the process without a word. Ignored (here and in every
  // child: compile workers, compilers), the write fails with EFBIG instead,
  // and the error names the file.
  ::signal(SIGXFSZ, SIG_IGN);
  auto &Commands = getCommands();

  std::vector<std::string> Storage(argv, argv + argc);
  if (Storage.size() < 2)
    return failWithList("missing command", "");
  const std::string First = Storage[1];
  if (isHelpFlag(First)) {
    printToolHelp(outs());
    return 0;
  }
  if (getGroups().count(First)) {
    // "group action ..." becomes the registered two-word name.
    const std::string Prefix = "'mlgo " + First + "'";
    if (Storage.size() < 3)
      return failWithList("missing action for " + Prefix, First);
    const std::string Second = Storage[2];
    if (isHelpFlag(Second)) {
      printGroupHelp(outs(), First);
      return 0;
    }
    if (!Commands.count(First + " " + Second)) {
      if (StringRef(Second).starts_with("-"))
        return failWithList("missing action for " + Prefix, First);
      return failWithList("unknown action '" + Second + "' for " + Prefix,
                          First);
    }
    Storage[1] += " " + Second;
    Storage.erase(Storage.begin() + 2);
  } else if (Storage.size() >= 3 && Commands.count(First + " " + Storage[2])) {
    // A one-word command's action ("tune check").
    Storage[1] += " " + Storage[2];
    Storage.erase(Storage.begin() + 2);
  } else if (!StringRef(First).starts_with("-") && !Commands.count(First)) {
    return failWithList("unknown command '" + First + "'", "");
  }

  // Under mpirun or srun, rank 0 runs the command and the other ranks
  // compile for it (mlgo/Distributed/Cluster.h); this is before anything
  // forks or starts a thread.
  std::string Identity;
  raw_string_ostream IdentityOS(Identity);
  printVersion(IdentityOS);
  Expected<mlgo::distributed::Role> Role =
      mlgo::distributed::startCluster(argc, argv, Storage[1], IdentityOS.str());
  if (!Role)
    return mlgo::distributed::finishCluster(fail(Role.takeError()));
  if (Role->WorkerExit)
    return *Role->WorkerExit;
  return mlgo::distributed::finishCluster(runCommand(Storage));
}

/// Parses the command line (the command's words joined) and runs the
/// command it selects.
static int runCommand(const std::vector<std::string> &Storage) {
  auto &Commands = getCommands();
  std::vector<const char *> Args;
  for (const std::string &S : Storage)
    Args.push_back(S.c_str());
  cl::HideUnrelatedOptions(getToolCategory());
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(
      Args.size(), Args.data(),
      "mlgo - machine-learning-guided optimization for stock LLVM 19\n");
  // libLLVM registers options of its own in every subcommand; one given
  // to mlgo would do nothing (an old `mlgo tune --filter logged` would
  // run as if the word were not there), so it is refused.
  std::string Active;
  for (auto &Entry : Commands)
    if (*Entry.getValue().Cmd)
      Active = Entry.getKey().str() + " ";
  for (cl::SubCommand *Sub : cl::getRegisteredSubcommands())
    for (auto &Entry : Sub->OptionsMap) {
      cl::Option *O = Entry.getValue();
      // --help, --version and the like are in CommandLine's own
      // "Generic Options".
      bool Ours = llvm::any_of(O->Categories, [](cl::OptionCategory *C) {
        return C == &getToolCategory() || C->getName() == "Generic Options";
      });
      if (!O->getNumOccurrences() || O->isPositional() || Ours)
        continue;
      return fail("--" + Entry.getKey().str() +
                  " is not an option of mlgo (an option of LLVM's libraries, "
                  "which mlgo does not read); see mlgo " +
                  Active + "--help");
    }

  for (auto &Entry : Commands)
    if (*Entry.getValue().Cmd)
      return Entry.getValue().Main();
  // Only options and no command, e.g. "mlgo --some-option".
  return failWithList("missing command", "");
}

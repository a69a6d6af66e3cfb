//===- tools/mlgo/ProfileCommands.cpp - mlgo profile ----------------------===//
//
//   mlgo profile run -o P.profdata [--timeout=S] -- COMMAND [ARG]...
//   mlgo profile merge RAW.profraw... -o P.profdata
//   mlgo profile show P.profdata
//
// IR-level profiles for mlgo's speed work (mlgo/Speed/Profile.h). `run` runs
// a workload command - anything that runs programs built with
// `-fprofile-generate` (a test suite, a benchmark script) - with
// LLVM_PROFILE_FILE pointing into a fresh directory, merges every raw
// profile the programs wrote into one indexed profile and checks it; the
// command must succeed, and must have run instrumented code. `merge` merges
// raw profiles written elsewhere; `show` checks a profile and says what it
// holds. An output is written only when everything succeeded.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
tool::RegisterGroup ProfileGroup("profile", "Profiles of workloads, for speed");

cl::SubCommand RunCmd("profile run",
                      "Run a workload of -fprofile-generate programs and "
                      "merge what it recorded into one profile");
cl::list<std::string> Command(cl::Positional, cl::OneOrMore,
                              cl::desc("-- <command> [arg]..."),
                              cl::sub(RunCmd), cl::cat(Cat));
cl::opt<std::string> RunOut("o", cl::Required,
                            cl::desc("the indexed profile to write"),
                            cl::value_desc("file.profdata"), cl::sub(RunCmd),
                            cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("seconds the workload may run (0: no "
                                   "limit)"),
                          cl::init(3600), cl::sub(RunCmd), cl::cat(Cat));

cl::SubCommand MergeCmd("profile merge",
                        "Merge raw profiles into one indexed profile");
cl::list<std::string> Raw(cl::Positional, cl::OneOrMore,
                          cl::desc("<file.profraw>..."), cl::sub(MergeCmd),
                          cl::cat(Cat));
cl::opt<std::string> MergeOut("o", cl::Required,
                              cl::desc("the indexed profile to write"),
                              cl::value_desc("file.profdata"),
                              cl::sub(MergeCmd), cl::cat(Cat));

cl::SubCommand ShowCmd("profile show",
                       "Check an indexed profile and say what it holds");
cl::opt<std::string> ShowFile(cl::Positional, cl::Required,
                              cl::desc("<file.profdata>"), cl::sub(ShowCmd),
                              cl::cat(Cat));

void printInfo(raw_ostream &OS, StringRef Path, const ProfileInfo &I) {
  OS << Path << ": " << I.Functions << " functions, " << I.ExecutedFunctions
     << " executed; largest count " << I.MaxCount << "\n";
}

/// Merges \p Files into \p Out and checks the result (removed if bad).
int mergeAndCheck(ArrayRef<std::string> Files, StringRef Out) {
  if (Error E = mergeRawProfiles(Files, Out))
    return fail(std::move(E));
  Expected<ProfileInfo> Info = readProfileInfo(Out);
  if (!Info) {
    sys::fs::remove(Out);
    return fail(Info.takeError());
  }
  printInfo(outs(), Out, *Info);
  return 0;
}

int runRun() {
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("mlgo-profile", Dir))
    return fail("cannot create a directory for raw profiles: " + EC.message());
  // %m: one file per instrumented binary (merged across its runs by the
  // runtime), %p: per process, so that concurrent runs never share a file.
  SmallString<256> Pattern(Dir);
  sys::path::append(Pattern, "%m-%p.profraw");
  // The workload and everything it starts inherit this.
  ::setenv("LLVM_PROFILE_FILE", Pattern.c_str(), 1);
  RunOptions Options;
  Options.TimeoutSeconds = Timeout;
  Options.OwnProcessGroup = true;
  ProcessResult R = runProcess(
      std::vector<std::string>(Command.begin(), Command.end()), Options);
  auto Cleanup = [&] { sys::fs::remove_directories(Dir); };
  if (!R.succeeded()) {
    Cleanup();
    return fail("the workload '" + Command.front() + "' " + R.describe() +
                "; no profile written");
  }
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  if (Files.empty()) {
    Cleanup();
    return fail("the workload '" + Command.front() +
                "' ran no program built with -fprofile-generate; no profile "
                "written");
  }
  int Status = mergeAndCheck(Files, RunOut);
  Cleanup();
  return Status;
}

int runMerge() {
  return mergeAndCheck(std::vector<std::string>(Raw.begin(), Raw.end()),
                       MergeOut);
}

int runShow() {
  Expected<ProfileInfo> Info = readProfileInfo(ShowFile);
  if (!Info)
    return fail(Info.takeError());
  printInfo(outs(), ShowFile, *Info);
  return 0;
}

tool::RegisterSubcommand RegisteredRun(RunCmd, runRun);
tool::RegisterSubcommand RegisteredMerge(MergeCmd, runMerge);
tool::RegisterSubcommand RegisteredShow(ShowCmd, runShow);

} // namespace

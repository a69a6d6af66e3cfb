//===- tools/mlgo/Serve.cpp - mlgo serve ----------------------------------===//
//
// `mlgo serve --policy P [--log FILE] [--timeout SECS] -- COMMAND...` runs a
// compiler with interactive ML advice enabled and answers every decision it
// asks for (see mlgo/Protocol/Host.h and docs/protocol.md). "{channel}" in
// the command is replaced by the channel base, e.g.
//
//   mlgo serve --policy always -- opt-19 -passes='default<Oz>'
//       -enable-ml-inliner=release
//       -inliner-interactive-channel-base={channel} in.bc -o out.bc
//
// The exit status is the compiler's (128 + signal if it was killed), or 1
// for a failure of the host itself.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Model/ModelPolicy.h"
#include "mlgo/Protocol/Host.h"
#include "mlgo/Protocol/ServePolicy.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;

namespace {

cl::SubCommand ServeCmd("serve",
                        "Run a compiler and answer its ML decisions over the "
                        "interactive protocol");
cl::opt<std::string>
    PolicySpec("policy",
               cl::desc("Decision policy: always, never, alternate, "
                        "first-valid (regalloc eviction) or model=FILE"),
               cl::value_desc("policy"), cl::Required, cl::sub(ServeCmd),
               cl::cat(tool::getToolCategory()));
cl::opt<std::string>
    LogPath("log",
            cl::desc("Record a training log: features as received, then the "
                     "advice as the last feature"),
            cl::value_desc("file"), cl::sub(ServeCmd),
            cl::cat(tool::getToolCategory()));
cl::opt<unsigned> Timeout(
    "timeout",
    cl::desc("Kill the compiler after this many seconds without a byte from "
             "it while connected (0: no limit)"),
    cl::value_desc("seconds"), cl::init(300), cl::sub(ServeCmd),
    cl::cat(tool::getToolCategory()));
cl::list<std::string>
    Command(cl::Positional, cl::OneOrMore,
            cl::desc("-- <command> [args...] ('{channel}' is replaced by the "
                     "channel base)"),
            cl::sub(ServeCmd), cl::cat(tool::getToolCategory()));

raw_ostream &error() { return errs() << "mlgo serve: error: "; }

int runServe() {
  // The built-in rules come with the protocol library; "model=FILE" from
  // the model library.
  registerModelPolicy();
  auto P = createPolicy(PolicySpec);
  if (!P) {
    error() << toString(P.takeError()) << "\n";
    return 1;
  }
  ServeOptions Opts;
  Opts.TimeoutSeconds = Timeout;
  Opts.LogPath = LogPath;
  std::vector<std::string> Cmd(Command.begin(), Command.end());
  Expected<ServeStats> Stats = serveCommand(Cmd, **P, Opts);
  if (!Stats) {
    int Status = 1;
    handleAllErrors(
        Stats.takeError(),
        [&](const CompilerExitError &E) {
          error() << E.message() << "\n";
          if (!E.Status.succeeded())
            Status = E.Status.toShellStatus();
        },
        [&](const ErrorInfoBase &E) { error() << E.message() << "\n"; });
    return Status;
  }
  errs() << "mlgo serve: " << Stats->Decisions
         << (Stats->Decisions == 1 ? " decision, " : " decisions, ")
         << Stats->Contexts
         << (Stats->Contexts == 1 ? " context, " : " contexts, ")
         << format("%.3fs elapsed (host %.3fs)", Stats->ElapsedSeconds,
                   Stats->HostSeconds)
         << "\n";
  return Stats->Compiler.toShellStatus();
}

tool::RegisterSubcommand RegisterServe(ServeCmd, runServe);

} // namespace

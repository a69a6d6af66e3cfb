//===- lib/Support/Process.cpp - Run a program with a reliable timeout ----===//
//
// Polling wait with a deadline, and process-group kills (see
// mlgo/Support/Process.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <signal.h>
#include <thread>

using namespace llvm;

namespace mlgo {

std::string RunResult::describe() const {
  if (!Problem.empty())
    return Problem;
  return "exited with " + std::to_string(ExitCode);
}

RunResult runProcess(ArrayRef<std::string> Argv, const RunOptions &Options) {
  assert(!Argv.empty() && "runProcess needs a program");
  RunResult R;
  std::vector<std::string> Full;
  if (Options.OwnProcessGroup)
    Full.push_back("setsid");
  Full.insert(Full.end(), Argv.begin(), Argv.end());
  std::string Program = Full[0];
  if (Program.find('/') == std::string::npos) {
    ErrorOr<std::string> Found = sys::findProgramByName(Program);
    if (!Found) {
      R.ExitCode = -1;
      R.Problem = "cannot find '" + Program + "' in PATH";
      return R;
    }
    Program = *Found;
  }
  std::vector<StringRef> Args(Full.begin(), Full.end());
  // LLVM opens a redirection target without O_TRUNC: a regular file that
  // exists would be overwritten in place, keeping the end of a longer old
  // content. Empty it first (devices such as /dev/null are left alone).
  for (const std::optional<std::string> &Out : {Options.Stdout, Options.Stderr})
    if (Out && sys::fs::is_regular_file(*Out)) {
      int FD;
      if (std::error_code EC =
              sys::fs::openFileForWrite(*Out, FD, sys::fs::CD_CreateAlways)) {
        R.ExitCode = -1;
        R.Problem = "cannot empty '" + *Out + "': " + EC.message();
        return R;
      }
      sys::Process::SafelyCloseFileDescriptor(FD);
    }
  auto Redirect = [](const std::optional<std::string> &S) {
    return S ? std::optional<StringRef>(*S) : std::nullopt;
  };
  std::optional<StringRef> Redirects[] = {Redirect(Options.Stdin),
                                          Redirect(Options.Stdout),
                                          Redirect(Options.Stderr)};
  std::string ErrMsg;
  bool Failed = false;
  sys::ProcessInfo PI = sys::ExecuteNoWait(Program, Args, std::nullopt,
                                           Redirects, 0, &ErrMsg, &Failed);
  if (Failed) {
    R.ExitCode = -1;
    R.Problem = "cannot run '" + Argv[0] + "': " + ErrMsg;
    return R;
  }
  R.Started = true;

  using Clock = std::chrono::steady_clock;
  auto Deadline = Clock::now() + std::chrono::seconds(Options.TimeoutSeconds);
  // Short compiles finish in milliseconds: poll often at first, then back
  // off to 50 ms.
  auto Pause = std::chrono::microseconds(500);
  for (;;) {
    sys::ProcessInfo Done =
        sys::Wait(PI, /*SecondsToWait=*/0, &ErrMsg, /*ProcStat=*/nullptr);
    if (Done.Pid != 0) {
      R.ExitCode = Done.ReturnCode;
      if (R.ExitCode < 0)
        R.Problem = "crashed" + (ErrMsg.empty() ? "" : " (" + ErrMsg + ")");
      return R;
    }
    if (Options.TimeoutSeconds && Clock::now() >= Deadline)
      break;
    std::this_thread::sleep_for(Pause);
    Pause = std::min<std::chrono::microseconds>(Pause * 2,
                                                std::chrono::milliseconds(50));
  }
  ::kill(Options.OwnProcessGroup ? -PI.Pid : PI.Pid, SIGKILL);
  sys::Wait(PI, /*SecondsToWait=*/std::nullopt, &ErrMsg);
  R.ExitCode = -2;
  R.TimedOut = true;
  R.Problem =
      "timed out after " + std::to_string(Options.TimeoutSeconds) + " s";
  return R;
}

} // namespace mlgo

//===- python/src/Episode.cpp - One compiler run, stepped from Python -----===//
//
// See Episode.h: mlgo serve's host on a thread, with a policy that waits for
// the caller's answer.
//
//===----------------------------------------------------------------------===//

#include "Episode.h"

#include "mlgo/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace mlgo::python {

/// The ServePolicy of an episode: publishes each observation and waits.
class Episode::Bridge : public ServePolicy {
public:
  explicit Bridge(Episode &E) : E(E) {}

  llvm::Error begin(const LogHeader &H) override {
    std::lock_guard<std::mutex> L(E.Mutex);
    if (E.HaveHeader)
      return makeError("the compiler opened the channel a second time; an "
                       "episode is one session");
    E.Header = H;
    E.HaveHeader = true;
    return E.Others ? E.Others->begin(H) : Error::success();
  }

  void switchContext(StringRef Name) override {
    std::lock_guard<std::mutex> L(E.Mutex);
    E.Context = Name.str();
    E.ContextDecisions.emplace_back(E.Context, 0);
    if (E.Others)
      E.Others->switchContext(Name);
  }

  llvm::Error decide(const LogHeader &H, const LogRecord &Obs,
                     const LogReader &Reader, char *AdviceOut) override {
    if (!E.ContextDecisions.empty())
      ++E.ContextDecisions.back().second;
    if (E.Others && E.Context != E.Target)
      return E.Others->decide(H, Obs, Reader, AdviceOut);
    std::unique_lock<std::mutex> L(E.Mutex);
    if (E.Closing)
      return makeError("the episode was closed");
    E.ObsContext = E.Context;
    E.ObsIndex = Obs.Index;
    E.ObsBytes = Obs.Data;
    E.Answered = false;
    E.TheState = State::Observation;
    E.Changed.notify_all();
    E.Changed.wait(L, [&] { return E.Answered || E.Closing; });
    if (!E.Answered)
      return makeError("the episode was closed");
    size_t Size = H.Advice->getTotalTensorBufferSize();
    std::memset(AdviceOut, 0, Size);
    std::memcpy(AdviceOut, E.Advice.data(), std::min(Size, E.Advice.size()));
    ++E.Decisions;
    E.TheState = State::Running;
    return Error::success();
  }

private:
  Episode &E;
};

Episode::Episode(std::vector<std::string> Command, unsigned TimeoutSeconds,
                 std::unique_ptr<ServePolicy> Others, std::string Target,
                 std::string StderrPath)
    : Others(std::move(Others)), Target(std::move(Target)) {
  Host = std::thread([this, Command = std::move(Command), TimeoutSeconds,
                      StderrPath = std::move(StderrPath)] {
    run(Command, TimeoutSeconds, StderrPath);
  });
}

Episode::~Episode() { close(); }

void Episode::run(std::vector<std::string> Command, unsigned TimeoutSeconds,
                  std::string StderrPath) {
  Bridge B(*this);
  ServeOptions Opts;
  Opts.TimeoutSeconds = TimeoutSeconds;
  Opts.StderrPath = std::move(StderrPath);
  Expected<ServeStats> S = serveCommand(Command, B, Opts);
  std::lock_guard<std::mutex> L(Mutex);
  if (S) {
    Stats = *S;
    TheState = State::Finished;
  } else {
    llvm::Error E =
        handleErrors(S.takeError(), [&](std::unique_ptr<CompilerExitError> C) {
          CompilerExited = true;
          StderrTail = C->StderrTail;
          return llvm::Error(std::move(C));
        });
    Error = toString(std::move(E));
    TheState = State::Failed;
  }
  Changed.notify_all();
}

Episode::State Episode::waitFor(std::chrono::milliseconds Timeout) {
  std::unique_lock<std::mutex> L(Mutex);
  Changed.wait_for(L, Timeout, [&] { return TheState != State::Running; });
  return TheState;
}

Episode::State Episode::getState() {
  std::lock_guard<std::mutex> L(Mutex);
  return TheState;
}

void Episode::act(const char *Data, size_t Size) {
  std::lock_guard<std::mutex> L(Mutex);
  assert(TheState == State::Observation && "no observation to answer");
  Advice.assign(Data, Data + Size);
  Answered = true;
  TheState = State::Running;
  Changed.notify_all();
}

void Episode::close() {
  {
    std::lock_guard<std::mutex> L(Mutex);
    Closing = true;
    Changed.notify_all();
  }
  if (Host.joinable())
    Host.join();
}

} // namespace mlgo::python

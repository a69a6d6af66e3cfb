//===- python/src/Episode.h - One compiler run, stepped from Python -*- C++
//-*-//
//
// The gymnasium API turns the interactive protocol inside out: the host of
// mlgo serve (mlgo/Protocol/Host.h) calls a ServePolicy for every decision,
// while an environment's user calls step() with the decision and expects the
// next observation back. An Episode bridges the two without a second
// implementation of the protocol: serveCommand() runs on a thread of its own
// with a policy that hands each observation to the caller and blocks until
// the caller answers (or closes the episode). Everything the host guarantees
// - FIFOs opened in the right order, the compiler's death or stall reported,
// the child reaped, the channel removed - therefore holds here too.
//
// States, as the caller sees them:
//
//   Running      the compiler is working; waitFor() blocks
//   Observation  the compiler waits for the advice of getObservation();
//                act() answers it
//   Finished     the compiler exited with status 0; getStats()
//   Failed       the compiler ended badly, or the host failed;
//                getError() says why (mlgo serve's message, exactly)
//
// close() (and the destructor) makes a pending or later decide() fail, which
// makes the host kill the compiler, and joins the thread.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_PYTHON_EPISODE_H
#define MLGO_PYTHON_EPISODE_H

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Protocol/Host.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mlgo::python {

class Episode {
public:
  enum class State { Running, Observation, Finished, Failed };

  /// Starts \p Command ({channel} is the channel base) on a host thread.
  /// With \p Others, only the observations of the context named \p Target
  /// come to the caller; \p Others answers every other one on the host
  /// thread (an eviction episode is one function of a module's compile).
  /// With \p StderrPath, the compiler's stderr goes to that file, and a
  /// compiler that ends badly carries its end (getStderrTail()).
  Episode(std::vector<std::string> Command, unsigned TimeoutSeconds,
          std::unique_ptr<ServePolicy> Others = nullptr,
          std::string Target = "", std::string StderrPath = "");
  ~Episode();
  Episode(const Episode &) = delete;
  Episode &operator=(const Episode &) = delete;

  /// Waits up to \p Timeout for the state to leave Running; returns it.
  State waitFor(std::chrono::milliseconds Timeout);
  State getState();

  /// The header of the compiler's stream (valid once an observation came).
  const LogHeader &getHeader() const { return Header; }
  /// The pending observation: its context, number and tensor bytes.
  const std::string &getContext() const { return ObsContext; }
  uint64_t getIndex() const { return ObsIndex; }
  const std::vector<char> &getObservation() const { return ObsBytes; }
  /// Observations the caller answered so far.
  uint64_t getDecisions() const { return Decisions; }
  /// Observations per context (the caller's and Others'), in the order the
  /// contexts came; valid once the state is Finished or Failed.
  const std::vector<std::pair<std::string, uint64_t>> &
  getContextDecisions() const {
    return ContextDecisions;
  }

  /// Answers the pending observation with \p Advice (the advice tensor's
  /// bytes). The state must be Observation.
  void act(const char *Advice, size_t Size);

  /// Ends the episode: kills the compiler if it is still running and waits
  /// for the host thread.
  void close();

  const ServeStats &getStats() const { return Stats; }
  const std::string &getError() const { return Error; }
  /// Whether the state is Failed because the compiler ended badly (a
  /// CompilerExitError), not because of the host.
  bool compilerExited() const { return CompilerExited; }
  /// The end of the compiler's stderr when it ended badly (see the
  /// constructor).
  const std::string &getStderrTail() const { return StderrTail; }

private:
  class Bridge;
  void run(std::vector<std::string> Command, unsigned TimeoutSeconds,
           std::string StderrPath);

  std::unique_ptr<ServePolicy> Others;
  std::string Target;
  std::vector<std::pair<std::string, uint64_t>> ContextDecisions;

  std::mutex Mutex;
  std::condition_variable Changed;
  State TheState = State::Running;
  bool Answered = false;
  bool Closing = false;
  bool HaveHeader = false;

  LogHeader Header;
  std::string Context;
  std::string ObsContext;
  uint64_t ObsIndex = 0;
  std::vector<char> ObsBytes;
  std::vector<char> Advice;
  uint64_t Decisions = 0;

  ServeStats Stats;
  std::string Error;
  bool CompilerExited = false;
  std::string StderrTail;
  std::thread Host;
};

} // namespace mlgo::python

#endif // MLGO_PYTHON_EPISODE_H

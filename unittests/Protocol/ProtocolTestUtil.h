//===- ProtocolTestUtil.h - Helpers for the protocol tests ------*- C++ -*-===//
//
// The protocol tests fork "compilers" that talk to a host in the parent over
// a real Channel. A child must never return into GoogleTest: it reports
// through its exit status (_exit) only. A watchdog alarm turns any hang into
// a failure instead of a stuck test.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_UNITTESTS_PROTOCOL_PROTOCOLTESTUTIL_H
#define MLGO_UNITTESTS_PROTOCOL_PROTOCOLTESTUTIL_H

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Protocol/Host.h"

#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <string>
#include <unistd.h>

namespace mlgo::test {

/// Kills the test process (a failure) if it is still running after
/// \p Seconds; a hang is a bug in the code under test.
struct Watchdog {
  explicit Watchdog(unsigned Seconds = 60) {
    std::signal(SIGPIPE, SIG_IGN);
    ::alarm(Seconds);
  }
  ~Watchdog() { ::alarm(0); }
};

inline std::vector<TensorSpec> sampleFeatures() {
  return {TensorSpec::createSpec<int64_t>("x", {1}),
          TensorSpec::createSpec<float>("y", {2})};
}

inline TensorSpec sampleAdvice() {
  return TensorSpec::createSpec<int64_t>("decision", {1});
}

/// The bytes a compiler sends: the header, a context and \p Observations
/// observations with x = 0, 1, ... .
inline std::string sampleStream(size_t Observations) {
  std::string Bytes;
  auto OS = std::make_unique<llvm::raw_string_ostream>(Bytes);
  {
    LogWriter W(std::move(OS), sampleFeatures(), std::nullopt, sampleAdvice());
    W.switchContext("ctx");
    for (size_t I = 0; I < Observations; ++I) {
      int64_t X = static_cast<int64_t>(I);
      float Y[2] = {0.5f, -1.0f};
      W.logObservation({&X, Y});
    }
  }
  return Bytes;
}

/// Writes all of \p Bytes to \p FD or _exits with \p FailStatus.
inline void writeAllOrExit(int FD, const std::string &Bytes, int FailStatus) {
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t N = ::write(FD, Bytes.data() + Done, Bytes.size() - Done);
    if (N <= 0)
      ::_exit(FailStatus);
    Done += static_cast<size_t>(N);
  }
}

} // namespace mlgo::test

#endif // MLGO_UNITTESTS_PROTOCOL_PROTOCOLTESTUTIL_H

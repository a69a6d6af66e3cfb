//===- InteractiveRunner.cpp - Ask a host for advice ----------------------===//
//
// The compiler side of the interactive protocol. The happy path is a line for
// line port of llvm::InteractiveModelRunner (LLVM 19): same opening order,
// same header, same flushes, same reads. The differences are all on the
// failure paths, which report through the ErrorHandler instead of spinning
// on end of file or aborting in raw_fd_ostream's destructor.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Protocol/InteractiveRunner.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

InteractiveRunner::InteractiveRunner(std::vector<TensorSpec> Inputs,
                                     TensorSpec Advice, StringRef OutboundPath,
                                     StringRef InboundPath,
                                     ErrorHandler OnError,
                                     unsigned TimeoutSeconds)
    : ModelRunner(Kind::Interactive, std::move(Inputs), std::move(OnError)),
      AdviceSpec(std::move(Advice)), OutboundPath(OutboundPath.str()),
      InboundPath(InboundPath.str()), TimeoutSeconds(TimeoutSeconds),
      AdviceBuffer((AdviceSpec.getTotalTensorBufferSize() + 7) / 8 + 1, 0) {
  // Like the NoInference runner, the base class owns the input buffers.
  for (size_t I = 0; I < InputSpecs.size(); ++I)
    setUpBufferForTensor(I, InputSpecs[I], nullptr);

  // Inbound first: the host opens it for writing first, so this order cannot
  // deadlock (see docs/protocol.md). Both opens are non-blocking, so that a
  // host that never comes is an error at the deadline, not a hang: a FIFO
  // opens for reading at once, and for writing once the host reads it.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(TimeoutSeconds);
  int InboundFD =
      ::open(this->InboundPath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (InboundFD < 0) {
    fail(createStringError(std::error_code(errno, std::generic_category()),
                           "cannot open inbound channel '%s': %s",
                           this->InboundPath.c_str(), std::strerror(errno)));
    return;
  }
  Inbound.reset(InboundFD);
  int OutboundFD;
  while (true) {
    OutboundFD =
        ::open(this->OutboundPath.c_str(),
               O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    if (OutboundFD >= 0 || (errno != ENXIO && errno != EINTR))
      break;
    if (TimeoutSeconds && Clock::now() >= Deadline) {
      fail(createStringError(
          std::make_error_code(std::errc::timed_out),
          "cannot open outbound channel '%s': no host opened it for reading "
          "within %u s",
          this->OutboundPath.c_str(), TimeoutSeconds));
      return;
    }
    ::usleep(10000);
  }
  if (OutboundFD < 0) {
    fail(createStringError(std::error_code(errno, std::generic_category()),
                           "cannot open outbound channel '%s': %s",
                           this->OutboundPath.c_str(), std::strerror(errno)));
    return;
  }
  // Writes block again (the host reads at its pace).
  ::fcntl(OutboundFD, F_SETFL, ::fcntl(OutboundFD, F_GETFL) & ~O_NONBLOCK);
  auto OS = std::make_unique<raw_fd_ostream>(OutboundFD, /*shouldClose=*/true);
  Outbound = OS.get();
  Log = std::make_unique<LogWriter>(std::move(OS), InputSpecs,
                                    /*RewardSpec=*/std::nullopt, AdviceSpec);
  flushOutbound();
}

InteractiveRunner::~InteractiveRunner() {
  // The host may have closed its end by now (end of file is no surplus).
  checkNoSurplus();
  if (Log) {
    flushOutbound();
    // A write error left on the stream would make raw_fd_ostream's
    // destructor abort the compiler; it has been reported already.
    Outbound->clear_error();
  }
  Inbound.reset();
  Log.reset();
}

void InteractiveRunner::fail(Error E) {
  if (Broken) {
    consumeError(std::move(E));
    return;
  }
  Broken = true;
  reportError(std::move(E));
}

bool InteractiveRunner::flushOutbound() {
  if (Broken)
    return false;
  Log->flush();
  if (!Outbound->has_error())
    return true;
  std::error_code EC = Outbound->error();
  Outbound->clear_error();
  fail(createStringError(EC, "cannot write to outbound channel '%s': %s",
                         OutboundPath.c_str(), EC.message().c_str()));
  return false;
}

void InteractiveRunner::switchContext(StringRef Name) {
  if (Broken)
    return;
  Log->switchContext(Name);
  flushOutbound();
}

void *InteractiveRunner::evaluateUntyped() {
  char *Advice = reinterpret_cast<char *>(AdviceBuffer.data());
  const size_t Size = AdviceSpec.getTotalTensorBufferSize();
  std::memset(Advice, 0, Size);
  if (Broken)
    return Advice;
  // Nothing may wait before an observation is sent.
  if (!checkNoSurplus())
    return Advice;
  size_t Observation = Observations++;
  Log->startObservation();
  for (size_t I = 0; I < InputSpecs.size(); ++I)
    Log->logTensorValue(I, getTensorUntyped(I));
  Log->endObservation();
  if (!flushOutbound())
    return Advice;

  Expected<size_t> Got = readAdvice(Advice, Size, Observation);
  if (Got && *Got == Size && checkNoSurplus())
    return Advice;
  if (Got && *Got != Size)
    fail(createStringError(
        std::make_error_code(std::errc::io_error),
        "inbound channel '%s' was closed after %zu of %zu bytes of the "
        "advice for observation %zu",
        InboundPath.c_str(), *Got, Size, Observation));
  else if (!Got)
    fail(Got.takeError());
  std::memset(Advice, 0, Size);
  return Advice;
}

Expected<size_t> InteractiveRunner::readAdvice(char *Advice, size_t Size,
                                               size_t Observation) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(TimeoutSeconds);
  size_t Got = 0;
  while (Got < Size) {
    int Wait = -1;
    if (TimeoutSeconds) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
          Deadline - Clock::now());
      Wait = int(std::max<int64_t>(0, Left.count()));
    }
    struct pollfd P = {Inbound.get(), POLLIN, 0};
    int Ready = ::poll(&P, 1, Wait);
    if (Ready < 0 && errno == EINTR)
      continue;
    if (Ready < 0)
      return createStringError(std::error_code(errno, std::generic_category()),
                               "cannot wait for inbound channel '%s': %s",
                               InboundPath.c_str(), std::strerror(errno));
    if (Ready == 0)
      return createStringError(
          std::make_error_code(std::errc::timed_out),
          "inbound channel '%s': no advice for observation %zu after %u s "
          "(%zu of its %zu bytes came; a host that stopped?)",
          InboundPath.c_str(), Observation, TimeoutSeconds, Got, Size);
    ssize_t N = ::read(Inbound.get(), Advice + Got, Size - Got);
    if (N < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (N < 0)
      return createStringError(std::error_code(errno, std::generic_category()),
                               "cannot read from inbound channel '%s': %s",
                               InboundPath.c_str(), std::strerror(errno));
    if (N == 0)
      break;
    Got += size_t(N);
  }
  return Got;
}

bool InteractiveRunner::checkNoSurplus() {
  if (Broken || !Inbound)
    return !Broken;
  // The host may only write after an observation, one advice each: bytes
  // waiting now are more than it was asked for, and would be taken as the
  // next observation's advice.
  struct pollfd P = {Inbound.get(), POLLIN, 0};
  if (::poll(&P, 1, 0) <= 0 || !(P.revents & POLLIN))
    return true;
  char Surplus[64];
  ssize_t N;
  do
    N = ::read(Inbound.get(), Surplus, sizeof(Surplus));
  while (N < 0 && errno == EINTR);
  if (N <= 0)
    return true;
  fail(createStringError(
      std::make_error_code(std::errc::protocol_error),
      "inbound channel '%s': %s%zd bytes after the advice for observation "
      "%zu (an advice is %zu bytes; the host sent more than it was asked "
      "for)",
      InboundPath.c_str(), size_t(N) == sizeof(Surplus) ? "at least " : "", N,
      Observations ? Observations - 1 : 0,
      AdviceSpec.getTotalTensorBufferSize()));
  return false;
}

} // namespace mlgo

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
#include <optional>
#include <poll.h>
#include <string>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

namespace {

/// The outbound channel: non-blocking writes, each waiting at most the
/// timeout for the host to make room (a host that stops reading while the
/// pipe is full is an error, not a hang). The first error is kept and every
/// later byte dropped.
class OutboundStream final : public raw_ostream {
public:
  OutboundStream(int FD, StringRef Path, unsigned TimeoutSeconds)
      : FD(FD), Path(Path.str()), TimeoutSeconds(TimeoutSeconds) {}
  ~OutboundStream() override {
    flush();
    ::close(FD);
  }

  /// Names what the next bytes are, for the error ("observation 3").
  void setWhat(std::string W) { What = std::move(W); }
  /// The first write error, if any; the stream stays failed.
  Error takeError() {
    if (!Err)
      return Error::success();
    return createStringError(Err->first, "%s", Err->second.c_str());
  }
  bool failed() const { return Err.has_value(); }

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Pos; }

  const int FD;
  const std::string Path;
  const unsigned TimeoutSeconds;
  std::string What = "the log header";
  uint64_t Pos = 0;
  std::optional<std::pair<std::error_code, std::string>> Err;
};

void OutboundStream::write_impl(const char *Ptr, size_t Size) {
  using Clock = std::chrono::steady_clock;
  Pos += Size;
  if (Err)
    return;
  // The deadline restarts whenever the host takes some bytes: a slow host
  // is waited for, one that stopped reading is not.
  Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(TimeoutSeconds);
  while (Size) {
    ssize_t N = ::write(FD, Ptr, Size);
    if (N > 0) {
      Ptr += N;
      Size -= size_t(N);
      Deadline = Clock::now() + std::chrono::seconds(TimeoutSeconds);
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && errno != EAGAIN) {
      std::error_code EC(errno, std::generic_category());
      Err.emplace(EC, "cannot write " + What + " to outbound channel '" + Path +
                          "': " + EC.message());
      return;
    }
    int Wait = -1;
    if (TimeoutSeconds) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
          Deadline - Clock::now());
      Wait = int(std::max<int64_t>(0, Left.count()));
    }
    struct pollfd P = {FD, POLLOUT, 0};
    int Ready = ::poll(&P, 1, Wait);
    if (Ready < 0 && errno != EINTR) {
      std::error_code EC(errno, std::generic_category());
      Err.emplace(EC, "cannot wait for outbound channel '" + Path +
                          "': " + EC.message());
      return;
    }
    if (Ready == 0) {
      Err.emplace(std::make_error_code(std::errc::timed_out),
                  "outbound channel '" + Path + "': the host read nothing of " +
                      What + " for " + std::to_string(TimeoutSeconds) +
                      " s (a host that stopped reading?)");
      return;
    }
  }
}

} // namespace

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
  // Writes stay non-blocking: each waits for room until the deadline.
  auto OS = std::make_unique<OutboundStream>(OutboundFD, this->OutboundPath,
                                             TimeoutSeconds);
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
  auto *OS = static_cast<OutboundStream *>(Outbound);
  if (!OS->failed())
    return true;
  fail(OS->takeError());
  return false;
}

void InteractiveRunner::switchContext(StringRef Name) {
  if (Broken)
    return;
  static_cast<OutboundStream *>(Outbound)->setWhat("context '" + Name.str() +
                                                   "'");
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
  static_cast<OutboundStream *>(Outbound)->setWhat("observation " +
                                                   std::to_string(Observation));
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

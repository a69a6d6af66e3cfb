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
#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

InteractiveRunner::InteractiveRunner(std::vector<TensorSpec> Inputs,
                                     TensorSpec Advice, StringRef OutboundPath,
                                     StringRef InboundPath,
                                     ErrorHandler OnError)
    : ModelRunner(Kind::Interactive, std::move(Inputs), std::move(OnError)),
      AdviceSpec(std::move(Advice)), OutboundPath(OutboundPath.str()),
      InboundPath(InboundPath.str()),
      AdviceBuffer((AdviceSpec.getTotalTensorBufferSize() + 7) / 8 + 1, 0) {
  // Like the NoInference runner, the base class owns the input buffers.
  for (size_t I = 0; I < InputSpecs.size(); ++I)
    setUpBufferForTensor(I, InputSpecs[I], nullptr);

  // Inbound first: the host opens it for writing first, so this order cannot
  // deadlock (see docs/protocol.md).
  int InboundFD;
  if (std::error_code EC =
          sys::fs::openFileForRead(this->InboundPath, InboundFD)) {
    fail(createStringError(EC, "cannot open inbound channel '%s': %s",
                           this->InboundPath.c_str(), EC.message().c_str()));
    return;
  }
  Inbound.reset(InboundFD);
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(this->OutboundPath, EC);
  if (EC) {
    fail(createStringError(EC, "cannot open outbound channel '%s': %s",
                           this->OutboundPath.c_str(), EC.message().c_str()));
    return;
  }
  Outbound = OS.get();
  Log = std::make_unique<LogWriter>(std::move(OS), InputSpecs,
                                    /*RewardSpec=*/std::nullopt, AdviceSpec);
  flushOutbound();
}

InteractiveRunner::~InteractiveRunner() {
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
  size_t Observation = Observations++;
  Log->startObservation();
  for (size_t I = 0; I < InputSpecs.size(); ++I)
    Log->logTensorValue(I, getTensorUntyped(I));
  Log->endObservation();
  if (!flushOutbound())
    return Advice;

  ErrorOr<size_t> Got = readAll(Inbound.get(), Advice, Size);
  if (Got && *Got == Size)
    return Advice;
  if (Got)
    fail(createStringError(
        std::make_error_code(std::errc::io_error),
        "inbound channel '%s' was closed after %zu of %zu bytes of the "
        "advice for observation %zu",
        InboundPath.c_str(), *Got, Size, Observation));
  else
    fail(createStringError(
        Got.getError(), "cannot read from inbound channel '%s': %s",
        InboundPath.c_str(), Got.getError().message().c_str()));
  std::memset(Advice, 0, Size);
  return Advice;
}

} // namespace mlgo

//===- mlgo/Protocol/InteractiveRunner.h - Ask a host for advice -*- C++
//-*-===//
//
// The compiler side of LLVM's interactive protocol: a ModelRunner that sends
// every observation to an external host over one file (ideally a FIFO) and
// reads the host's advice back from another. It behaves byte for byte like
// llvm::InteractiveModelRunner (see mlgo/Protocol/Host.h and docs/protocol.md
// for the protocol), so a host written for stock LLVM talks to it unchanged:
//
//  * the inbound file (host -> compiler) is opened for reading first, then
//    the outbound file (compiler -> host) for writing; a host opens them in
//    the same order, from the other end, and neither side deadlocks;
//  * the outbound stream is a training log whose header lists the input
//    features and the "advice" spec, and has no "score";
//  * switchContext() writes {"context":NAME} and flushes; evaluateUntyped()
//    writes one observation, flushes, and reads exactly one advice tensor.
//
// Where LLVM's runner would hang or abort, this one reports through its
// ErrorHandler and carries on with a zeroed advice: when the host closes the
// inbound file before a whole advice arrived (stock LLVM spins forever on
// EOF), when no whole advice arrives within the timeout (a host that sent
// part of one, or nothing, and keeps the file open: stock LLVM blocks for
// ever), when the host sends more bytes than one advice (stock LLVM takes
// them as the next observation's advice), when a file cannot be opened, and
// when the host stops reading (closes the outbound file, or keeps it open
// and reads nothing within the timeout: stock LLVM blocks for ever). After the
// first such error the runner stops talking to the host and every later
// evaluation returns zeros without further reports.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_PROTOCOL_INTERACTIVERUNNER_H
#define MLGO_PROTOCOL_INTERACTIVERUNNER_H

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Runner/ModelRunner.h"
#include "mlgo/Support/FileDescriptor.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace mlgo {

class InteractiveRunner final : public ModelRunner {
public:
  /// Opens \p InboundPath for reading, then \p OutboundPath for writing (each
  /// open blocks until the host opens the other end), and sends the log
  /// header. Failures go to \p OnError. Each advice must arrive whole within
  /// \p TimeoutSeconds of its observation (0: wait for ever); otherwise the
  /// error is "inbound channel 'PATH': no advice for observation N after T s
  /// (G of its S bytes came; a host that stopped?)". Bytes waiting after an
  /// advice (or when the runner is destroyed) are "inbound channel 'PATH':
  /// N bytes after the advice for observation M (an advice is S bytes; the
  /// host sent more than it was asked for)". Writes wait at most
  /// \p TimeoutSeconds for the host to take some bytes; otherwise the error
  /// is "outbound channel 'PATH': the host read nothing of WHAT for T s (a
  /// host that stopped reading?)", WHAT being "the log header", "context
  /// 'NAME'" or "observation N".
  InteractiveRunner(std::vector<TensorSpec> Inputs, TensorSpec Advice,
                    llvm::StringRef OutboundPath, llvm::StringRef InboundPath,
                    ErrorHandler OnError = getDefaultErrorHandler(),
                    unsigned TimeoutSeconds = DefaultTimeoutSeconds);

  /// The plugin's default wait for one advice (-mlgo-interactive-timeout).
  static constexpr unsigned DefaultTimeoutSeconds = 300;
  ~InteractiveRunner() override;

  static bool classof(const ModelRunner *R) {
    return R->getKind() == Kind::Interactive;
  }

  void switchContext(llvm::StringRef Name) override;
  void *evaluateUntyped() override;

  const TensorSpec &getAdviceSpec() const { return AdviceSpec; }
  /// False once an error was reported: the runner then returns zeros.
  bool isConnected() const { return !Broken; }

private:
  /// Flushes the outbound stream; reports a write error and disconnects.
  bool flushOutbound();
  void fail(llvm::Error E);
  /// Reads up to \p Size bytes of observation \p Observation's advice,
  /// fewer at end of file; an error at the deadline.
  llvm::Expected<size_t> readAdvice(char *Advice, size_t Size,
                                    size_t Observation);
  /// False (and reported) if the host sent bytes it was not asked for.
  bool checkNoSurplus();

  const TensorSpec AdviceSpec;
  const std::string OutboundPath;
  const std::string InboundPath;
  const unsigned TimeoutSeconds;
  FileDescriptor Inbound;
  /// Owned by Log (an OutboundStream); kept to check for write errors.
  llvm::raw_ostream *Outbound = nullptr;
  std::unique_ptr<LogWriter> Log;
  /// 8-byte aligned storage for the advice tensor.
  std::vector<uint64_t> AdviceBuffer;
  size_t Observations = 0;
  bool Broken = false;
};

} // namespace mlgo

#endif // MLGO_PROTOCOL_INTERACTIVERUNNER_H

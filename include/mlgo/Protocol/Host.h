//===- mlgo/Protocol/Host.h - Serve a compiler's decisions ------*- C++ -*-===//
//
// The host side of LLVM's interactive ML protocol
// (llvm::InteractiveModelRunner, and mlgo::InteractiveRunner): run a compiler,
// answer every decision it asks for with a ServePolicy, and survive whatever
// the compiler does.
//
// The protocol (LLVM 19; docs/protocol.md has the full story)
// -----------------------------------------------------------
// The compiler is given a channel base BASE (opt/clang:
// -inliner-interactive-channel-base=BASE, llc:
// -regalloc-evict-interactive-channel-base=BASE) and uses two files, which
// the host creates (as FIFOs) and deletes:
//
//   BASE.out  compiler -> host   a training log (mlgo/Log/TrainingLog.h)
//   BASE.in   host -> compiler   raw advice tensors
//
// Opening: the compiler opens BASE.in for reading FIRST, then BASE.out for
// writing. A FIFO open blocks until the other end is opened too, so a host
// that blocks must open BASE.in for writing first, then BASE.out for
// reading; any other order deadlocks both processes. This host blocks in
// neither: it opens BASE.out for reading (O_NONBLOCK) and BASE.in for
// reading and writing (Linux) before it starts the compiler, whose opens
// then return at once.
//
// Then, on BASE.out, with every multi-byte value in host byte order:
//
//   {"features":[SPEC,...],"advice":SPEC}\n     header; no "score"
//   {"context":"NAME"}\n                        inliner: one, NAME ""
//                                                regalloc: one per function
//   {"observation":N}\n                          N from 0, per context
//   <feature 0 bytes>...<feature K-1 bytes>      sizes from the header specs
//   \n
//
// and after each observation the compiler blocks until it has read, on
// BASE.in, exactly one advice tensor: Advice.getTotalTensorBufferSize() raw
// bytes (8 bytes, an int64_t, for both the inliner's "inlining_decision" and
// regalloc's "index_to_evict"), with nothing around it. The stream ends when
// the compiler closes BASE.out (its runner is destroyed). A compiler process
// may open the channel again later (e.g. one clang invocation compiling
// several files): every such session starts with a new header.
//
// Failure handling (what this host guarantees)
// --------------------------------------------
//  * nothing ever blocks without bound: FIFOs are opened O_NONBLOCK, and
//    every wait, the one for the compiler's first byte included, is one
//    poll() that also watches the compiler's end (and, once it is
//    connected, has a deadline);
//  * the compiler exiting non-zero or dying by a signal, before or during the
//    stream, is a CompilerExitError naming its status and how many observations
//    it had sent; a command that exits without ever opening the channel is
//    reported as such (it is probably not ML-enabled);
//  * a live compiler that sends nothing for TimeoutSeconds is killed
//    (SIGKILL) and reported; a host-side error (policy, log file, protocol
//    violation) also kills the compiler, since stock LLVM would spin forever
//    on the end of file of BASE.in;
//  * serveCommand's compiler leads its own process group (killed whole) and
//    is SIGKILLed by the kernel when the host dies (PR_SET_PDEATHSIG): a
//    host killed mid-session, or a Python host that os._exit()s, leaves no
//    compiler spinning on the end of file of BASE.in. It is started without
//    a copy of the host's address space (SpawnOptions::DieWithParent);
//  * the child is always reaped; SIGPIPE is ignored while serving (EPIPE is
//    handled instead); the FIFOs and their private directory are removed on
//    every path, including SIGINT/SIGTERM/SIGHUP of the host.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_PROTOCOL_HOST_H
#define MLGO_PROTOCOL_HOST_H

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Protocol/ServePolicy.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlgo {

/// A fresh private directory (mode 0700, under $TMPDIR or /tmp) holding the
/// two FIFOs of one channel. The destructor removes them; so does a
/// SIGINT/SIGTERM/SIGHUP of this process, which also kills the process
/// registered with setProcess().
class Channel {
public:
  static llvm::Expected<std::unique_ptr<Channel>> create();
  ~Channel();
  Channel(const Channel &) = delete;
  Channel &operator=(const Channel &) = delete;

  const std::string &getDirectory() const { return Directory; }
  /// DIR/channel: what {channel} stands for on a compiler command line.
  const std::string &getBase() const { return Base; }
  /// BASE.in: the host writes advice here.
  std::string getInboundPath() const { return Base + ".in"; }
  /// BASE.out: the host reads the compiler's log here.
  std::string getOutboundPath() const { return Base + ".out"; }

  /// Kill \p Pid if this process is interrupted while the channel exists
  /// (0: nobody).
  void setProcess(int Pid);

private:
  Channel(std::string Directory, int Slot);
  std::string Directory;
  std::string Base;
  int Slot;
};

/// The compiler ended badly (or never spoke the protocol). Serve's exit
/// status is the compiler's.
class CompilerExitError : public llvm::ErrorInfo<CompilerExitError> {
public:
  static char ID;
  CompilerExitError(ProcessResult Status, uint64_t Observations, bool Connected)
      : Status(Status), Observations(Observations), Connected(Connected) {}
  /// "compiler exited with status 1 after 3 observations", or, for a command
  /// that never opened the channel, a hint about the missing flags; then,
  /// when kept (ServeOptions::StderrPath), the end of the compiler's stderr
  /// on the lines after it - the compiler's own message.
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  ProcessResult Status;
  /// Observations the compiler sent, whether or not it lived to read the
  /// answer to the last one.
  uint64_t Observations;
  /// Whether the compiler ever opened the channel: wrote to BASE.out, or
  /// opened and closed it (an open of BASE.in alone leaves no trace the
  /// host can see).
  bool Connected;
  /// The last StderrTailBytes of the compiler's stderr (whole lines where
  /// the cut allows), when ServeOptions::StderrPath kept it.
  std::string StderrTail;
  static constexpr size_t StderrTailBytes = 2000;
};

struct ServeOptions {
  /// Kill the compiler after this many seconds without a byte from it while
  /// it is connected (0: wait forever).
  unsigned TimeoutSeconds = 300;
  /// If not empty, record a training log here: the features as received,
  /// then the advice as one more feature (e.g. "inlining_decision"), the
  /// contexts as received, no score.
  std::string LogPath;
  /// If not empty, the compiler's stderr goes to this file (truncated)
  /// instead of the host's, and a CompilerExitError carries its end.
  std::string StderrPath;
};

struct ServeStats {
  uint64_t Decisions = 0;
  uint64_t Contexts = 0;
  /// How many times the compiler opened the channel.
  uint64_t Sessions = 0;
  double ElapsedSeconds = 0;
  /// Elapsed time minus time spent waiting for the compiler.
  double HostSeconds = 0;
  ProcessResult Compiler = ProcessResult::exited(0);
};

/// What the host does around one session's stream, apart from the policy:
/// serveProcess implements it with the FIFOs and the compiler process;
/// serveStream drives it. Exposed so that the session logic can be run from
/// memory (the fuzz target fuzz/serve-host.cpp, tests).
class SessionIO {
public:
  virtual ~SessionIO();
  /// The header has been read and the policy has accepted it.
  virtual llvm::Error start(const LogHeader &Header) {
    return llvm::Error::success();
  }
  /// A {"context":...} record (after the policy has seen it).
  virtual void switchContext(llvm::StringRef Name) {}
  /// Sends \p Size bytes of advice for observation \p Obs to the compiler.
  virtual llvm::Error advise(const LogHeader &Header, const LogRecord &Obs,
                             const LogReader &Reader, const char *Advice,
                             size_t Size) = 0;
  /// The error to report when reading the stream failed with \p E.
  virtual llvm::Error streamBroken(llvm::Error E) { return E; }
};

/// The largest advice tensor a host accepts (LLVM's are 8 bytes); a header
/// that declares more is an error, not an allocation.
inline constexpr size_t MaxAdviceBytes = 1 << 20;

/// Serves one session: reads the compiler's log from \p Stream (called
/// \p Name in errors), lets \p P decide every observation and hands the
/// advice to \p IO, until the stream ends. Errors of the stream name it and
/// the byte offset; an outcome record is an error (interactive streams have
/// no score).
llvm::Error serveStream(std::unique_ptr<ByteSource> Stream,
                        llvm::StringRef Name, ServePolicy &P, SessionIO &IO);

/// Replaces every "{channel}" in \p Arg with \p Base.
std::string substituteChannel(llvm::StringRef Arg, llvm::StringRef Base);

/// Creates a channel, runs \p Command (argv, program looked up in PATH, with
/// {channel} substituted) and serves it with \p P until it exits. Returns
/// the statistics of a compiler that exited with status 0 after at least one
/// session; a CompilerExitError if it ended otherwise; another error for
/// host-side failures (the compiler has then been killed).
llvm::Expected<ServeStats> serveCommand(llvm::ArrayRef<std::string> Command,
                                        ServePolicy &P,
                                        const ServeOptions &Opts);

/// The same for a process that is already running (e.g. forked by a test
/// and adopted): serves \p Compiler on \p Chan and reaps it.
llvm::Expected<ServeStats> serveProcess(Channel &Chan, ChildProcess Compiler,
                                        ServePolicy &P,
                                        const ServeOptions &Opts);

} // namespace mlgo

#endif // MLGO_PROTOCOL_HOST_H

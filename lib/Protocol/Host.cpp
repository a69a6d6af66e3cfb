//===- Host.cpp - Serve a compiler's decisions ----------------------------===//
//
// The host side of the interactive protocol (see mlgo/Protocol/Host.h for
// the protocol and the guarantees). The design rule is that the host never
// makes a call that can block without bound: the host opens its ends of
// the FIFOs before the compiler (non-blocking, so no open waits for the
// other side), the compiler's stream is read through a ByteSource that poll()s
// the FIFO and the compiler's end (mlgo::ChildProcess's exit descriptor) at
// once, with the stall deadline as timeout, and advice is written to a
// non-blocking FIFO the same way. The compiler is spawned, waited for,
// killed and reaped through mlgo::ChildProcess (mlgo/Support/Process.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Protocol/Host.h"

#include "mlgo/Log/ByteSource.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/FileDescriptor.h"
#include "mlgo/Support/TempDirs.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

char CompilerExitError::ID = 0;

static Error makeErrnoError(const Twine &Message, std::error_code EC) {
  return createStringError(EC, Message + ": " + EC.message());
}

static Error makeErrnoError(const Twine &Message) {
  return makeErrnoError(Message,
                        std::error_code(errno, std::generic_category()));
}

static std::string plural(uint64_t N, StringRef Word) {
  return std::to_string(N) + " " + Word.str() + (N == 1 ? "" : "s");
}

//===----------------------------------------------------------------------===//
// Cleanup on SIGINT/SIGTERM/SIGHUP
//===----------------------------------------------------------------------===//
//
// A signal handler may only use async-signal-safe calls, so every live
// channel keeps its paths in a fixed slot of plain char arrays. The handler
// kills the slot's process, unlinks the FIFOs, removes the directory, then
// restores the previous handler (LLVM's, which removes its own temporary
// files) and re-raises.

namespace {

constexpr int NumSlots = 8;
constexpr size_t MaxPath = 512;

struct CleanupSlot {
  std::atomic<bool> Used{false};
  std::atomic<bool> Ready{false};
  std::atomic<int> Pid{0};
  char Inbound[MaxPath];
  char Outbound[MaxPath];
  char Directory[MaxPath];
};

CleanupSlot Slots[NumSlots];
const int CleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction PreviousActions[3];
std::atomic<bool> HandlersInstalled{false};

void cleanupAllSlots() {
  for (CleanupSlot &S : Slots) {
    if (!S.Ready.load())
      continue;
    // The compiler leads its own process group (serveCommand): its
    // children die with it.
    if (int Pid = S.Pid.load(); Pid > 0) {
      ::kill(-Pid, SIGKILL);
      ::kill(Pid, SIGKILL);
    }
    ::unlink(S.Inbound);
    ::unlink(S.Outbound);
    ::rmdir(S.Directory);
  }
}

void onTerminatingSignal(int Sig) {
  cleanupAllSlots();
  for (size_t I = 0; I < std::size(CleanupSignals); ++I)
    if (CleanupSignals[I] == Sig)
      ::sigaction(Sig, &PreviousActions[I], nullptr);
  ::raise(Sig);
}

void installHandlersOnce() {
  bool Expected = false;
  if (!HandlersInstalled.compare_exchange_strong(Expected, true))
    return;
  for (size_t I = 0; I < std::size(CleanupSignals); ++I) {
    struct sigaction Action;
    std::memset(&Action, 0, sizeof(Action));
    Action.sa_handler = onTerminatingSignal;
    sigemptyset(&Action.sa_mask);
    Action.sa_flags = SA_RESETHAND;
    ::sigaction(CleanupSignals[I], &Action, &PreviousActions[I]);
  }
}

void copyPath(char *Dest, const std::string &Src) {
  std::strncpy(Dest, Src.c_str(), MaxPath - 1);
  Dest[MaxPath - 1] = '\0';
}

} // namespace

//===----------------------------------------------------------------------===//
// Channel
//===----------------------------------------------------------------------===//

Channel::Channel(std::string Dir, int Slot)
    : Directory(std::move(Dir)), Slot(Slot) {
  Base = Directory + "/channel";
}

Expected<std::unique_ptr<Channel>> Channel::create() {
  SmallString<256> Template;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Template);
  // The pid in the name lets the next run collect the directory of a host
  // that was SIGKILLed (mlgo/Support/TempDirs.h).
  collectStaleTempDirs("mlgo-serve");
  sys::path::append(Template,
                    "mlgo-serve-" + std::to_string(::getpid()) + "-XXXXXX");
  if (Template.size() + 16 >= MaxPath)
    return makeError("temporary directory path '" + Template +
                     "' is too long for a channel");
  std::string Dir(Template.str());
  if (!::mkdtemp(Dir.data()))
    return makeErrnoError("cannot create a private directory '" + Template +
                          "' for the channel");
  int Slot = -1;
  for (int I = 0; I < NumSlots; ++I) {
    bool Expected = false;
    if (Slots[I].Used.compare_exchange_strong(Expected, true)) {
      Slot = I;
      break;
    }
  }
  std::unique_ptr<Channel> C(new Channel(Dir, Slot));
  if (Slot >= 0) {
    installHandlersOnce();
    copyPath(Slots[Slot].Inbound, C->getInboundPath());
    copyPath(Slots[Slot].Outbound, C->getOutboundPath());
    copyPath(Slots[Slot].Directory, Dir);
    Slots[Slot].Pid.store(0);
    Slots[Slot].Ready.store(true);
  }
  for (const std::string &Path : {C->getInboundPath(), C->getOutboundPath()})
    if (::mkfifo(Path.c_str(), 0600) != 0)
      return makeErrnoError("cannot create FIFO '" + Path + "'");
  return C;
}

Channel::~Channel() {
  if (Slot >= 0) {
    Slots[Slot].Ready.store(false);
    Slots[Slot].Pid.store(0);
  }
  ::unlink(getInboundPath().c_str());
  ::unlink(getOutboundPath().c_str());
  ::rmdir(Directory.c_str());
  if (Slot >= 0)
    Slots[Slot].Used.store(false);
}

void Channel::setProcess(int Pid) {
  if (Slot >= 0)
    Slots[Slot].Pid.store(Pid);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void CompilerExitError::log(raw_ostream &OS) const {
  if (Connected)
    OS << "compiler " << Status.describe() << " after "
       << plural(Observations, "observation");
  else
    OS << "command " << Status.describe()
       << " without ever opening the channel; is interactive ML advice "
          "enabled on its command line (e.g. "
          "opt -enable-ml-inliner=release "
          "-inliner-interactive-channel-base={channel})?";
  if (!StderrTail.empty())
    OS << ":\n" << StderrTail;
}

/// The end of \p Path's text for CompilerExitError::StderrTail: at most
/// StderrTailBytes, from a line's start when the cut falls in a line, with
/// no trailing newline; empty when the file cannot be read.
static std::string readStderrTail(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  StringRef Text = (*Buf)->getBuffer().rtrim();
  if (Text.size() > CompilerExitError::StderrTailBytes) {
    Text = Text.take_back(CompilerExitError::StderrTailBytes);
    size_t NL = Text.find('\n');
    if (NL != StringRef::npos && NL + 1 < Text.size())
      Text = Text.drop_front(NL + 1);
  }
  return Text.str();
}

std::error_code CompilerExitError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

std::string substituteChannel(StringRef Arg, StringRef Base) {
  std::string Out;
  while (true) {
    size_t Pos = Arg.find("{channel}");
    if (Pos == StringRef::npos)
      break;
    Out += Arg.substr(0, Pos);
    Out += Base;
    Arg = Arg.substr(Pos + strlen("{channel}"));
  }
  Out += Arg;
  return Out;
}

//===----------------------------------------------------------------------===//
// The serving loop
//===----------------------------------------------------------------------===//

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// Ignores SIGPIPE while serving; writes to a closed FIFO then fail with
/// EPIPE, which the host handles. Installed after the compiler was spawned,
/// so the compiler does not inherit the ignored disposition.
class IgnoreSigPipe {
public:
  IgnoreSigPipe() {
    struct sigaction Ignore;
    std::memset(&Ignore, 0, sizeof(Ignore));
    Ignore.sa_handler = SIG_IGN;
    sigemptyset(&Ignore.sa_mask);
    ::sigaction(SIGPIPE, &Ignore, &Previous);
  }
  ~IgnoreSigPipe() { ::sigaction(SIGPIPE, &Previous, nullptr); }

private:
  struct sigaction Previous;
};

/// The host's ends of a channel for one session. Both are opened before
/// the compiler opens its own, and neither open waits for the compiler:
/// BASE.out for reading (O_NONBLOCK never waits for a writer), and BASE.in
/// for reading and writing (Linux opens a FIFO for both at once, without
/// waiting: the host is its own reader). The compiler's blocking opens of
/// both files then return at once, in whatever order the two processes
/// run; nothing signals the host then, and nothing needs to: it waits for
/// the compiler's first byte. Once that came, the compiler has opened
/// BASE.in, and connect() makes the host's end write-only, so that the
/// compiler is BASE.in's only reader again: its close is an EPIPE, and
/// the FIFO's bytes are dropped with the session.
struct ChannelEnds {
  FileDescriptor In, Out;
};

Expected<ChannelEnds> openEnds(const Channel &Chan) {
  ChannelEnds E;
  const std::string OutPath = Chan.getOutboundPath();
  int Out = ::open(OutPath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (Out < 0)
    return makeErrnoError("cannot open '" + OutPath + "' for reading");
  E.Out.reset(Out);
  const std::string InPath = Chan.getInboundPath();
  int In = ::open(InPath.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (In < 0)
    return makeErrnoError("cannot open '" + InPath + "'");
  E.In.reset(In);
  return E;
}

/// Everything one run of the host knows; shared by the serving loop and the
/// ByteSource reading the compiler's stream.
class Server final : public SessionIO {
public:
  Server(Channel &Chan, ChannelEnds Ends, ChildProcess Compiler, ServePolicy &P,
         const ServeOptions &Opts)
      : Chan(Chan), Ends(std::move(Ends)), Compiler(std::move(Compiler)),
        ThePolicy(P), Opts(Opts), Start(Clock::now()) {
    Chan.setProcess(this->Compiler.getPid());
  }
  ~Server() {
    if (!isReaped())
      killAndReap();
    Chan.setProcess(0);
  }

  Expected<ServeStats> run();

  bool isReaped() const { return Compiler.getResult().has_value(); }
  /// How the compiler ended; only once it has been reaped.
  const ProcessResult &getStatus() const { return *Compiler.getResult(); }
  /// Non-blocking check: has the child exited? Reaps it if so.
  bool checkExited();
  void killAndReap();
  /// Waits for the child to exit, for at most the timeout; kills it when
  /// the timeout passes.
  void waitForExit();

  /// When a wait for bytes that starts now counts as a stall.
  Clock::time_point getStallDeadline() const {
    if (!Opts.TimeoutSeconds)
      return Clock::time_point::max();
    return Clock::now() + std::chrono::seconds(Opts.TimeoutSeconds);
  }
  /// Waits until \p FD is ready for \p Events, the compiler ends, or
  /// \p Deadline passes, counting the time as waiting for the compiler.
  /// Returns whether \p FD is ready.
  Expected<bool> waitForFD(int FD, short Events, Clock::time_point Deadline);

  Channel &Chan;
  /// The current session's ends (opened for the next one once it ends).
  ChannelEnds Ends;
  ChildProcess Compiler;
  ServePolicy &ThePolicy;
  const ServeOptions &Opts;
  const Clock::time_point Start;
  double WaitSeconds = 0;

  /// The host killed the child because it stopped talking.
  bool Stalled = false;
  /// The current session's stream reached end of file.
  bool StreamClosed = false;
  ServeStats Stats;
  /// Observations received, answered or not: what errors report. A compiler
  /// killed while its observation waits may or may not still take the
  /// answer, so Stats.Decisions would make the message a race.
  uint64_t Observations = 0;

  // The recorded training log, created from the first session's header.
  raw_fd_ostream *LogStream = nullptr;
  std::unique_ptr<LogWriter> Log;
  std::optional<LogHeader> FirstHeader;
  /// BASE.in of the current session.
  int InFD = -1;

private:
  /// Waits for the compiler's first byte on Ends (or its close of
  /// BASE.out), then makes BASE.in write-only. Returns false if the child
  /// ended without ever opening BASE.out.
  Expected<bool> connect();
  Error serveSession();
  Error start(const LogHeader &H) override;
  void switchContext(StringRef Name) override;
  Error advise(const LogHeader &H, const LogRecord &Obs,
               const LogReader &Reader, const char *Advice,
               size_t Size) override;
  Error streamBroken(Error E) override;
  Error writeAdvice(int FD, const char *Data, size_t Size);
  Error record(const LogHeader &H, const LogRecord &Rec,
               const LogReader &Reader, const char *Advice);
  Error startLog(const LogHeader &H);
  /// The error to report after the compiler's stream broke with \p E.
  Error explainBrokenStream(Error E, bool Closed);
};

/// Reads the compiler's stream, waiting for bytes and for the compiler's
/// end at once, never past the stall timeout.
class CompilerSource final : public ByteSource {
public:
  CompilerSource(Server &S, int FD) : S(S), FD(FD) {}

  Expected<size_t> read(char *Buf, size_t Size) override {
    Clock::time_point Deadline = S.getStallDeadline();
    while (true) {
      Expected<bool> Ready = S.waitForFD(FD, POLLIN, Deadline);
      if (!Ready)
        return Ready.takeError();
      // After the compiler's end, whatever it wrote before is still read:
      // a compiler that died before it opened BASE.out for writing never
      // produces POLLHUP.
      bool Exited = !*Ready && S.checkExited();
      if (*Ready || Exited) {
        ErrorOr<size_t> N = readSome(FD, Buf, Size);
        if (N && *N > 0)
          return *N;
        if (N || Exited) {
          S.StreamClosed = true;
          return 0;
        }
        if (N.getError() != std::errc::resource_unavailable_try_again)
          return makeErrnoError("cannot read the compiler's stream",
                                N.getError());
        continue;
      }
      if (Clock::now() >= Deadline) {
        S.Stalled = true;
        S.killAndReap();
        return makeError("stalled");
      }
    }
  }

private:
  Server &S;
  int FD;
};

Expected<bool> Server::waitForFD(int FD, short Events,
                                 Clock::time_point Deadline) {
  // Without a descriptor for the compiler's end (kernels before pidfds),
  // wake up every 100 ms to check on it; once it has been reaped, only look.
  int ExitFD = Compiler.getExitFD();
  Clock::time_point Until = Deadline;
  if (isReaped())
    Until = Clock::now();
  else if (ExitFD < 0)
    Until = std::min(Until, Clock::now() + std::chrono::milliseconds(100));
  int Ms = -1;
  if (Until != Clock::time_point::max()) {
    auto Left =
        std::chrono::ceil<std::chrono::milliseconds>(Until - Clock::now());
    Ms = static_cast<int>(std::clamp<long long>(Left.count(), 0, INT_MAX));
  }
  struct pollfd P[2] = {{FD, Events, 0}, {ExitFD, POLLIN, 0}};
  Clock::time_point T = Clock::now();
  int R = ::poll(P, ExitFD >= 0 ? 2 : 1, Ms);
  WaitSeconds += secondsSince(T);
  if (R < 0 && errno != EINTR)
    return makeErrnoError("cannot poll the compiler's channel");
  return R > 0 && P[0].revents != 0;
}

bool Server::checkExited() {
  if (!Compiler.poll())
    return false;
  Chan.setProcess(0);
  return true;
}

void Server::killAndReap() {
  if (isReaped())
    return;
  Compiler.kill();
  Clock::time_point T = Clock::now();
  Compiler.wait();
  WaitSeconds += secondsSince(T);
  Chan.setProcess(0);
}

void Server::waitForExit() {
  Clock::time_point T = Clock::now();
  std::optional<ProcessResult> R =
      Opts.TimeoutSeconds
          ? Compiler.waitUntil(T + std::chrono::seconds(Opts.TimeoutSeconds))
          : Compiler.wait();
  WaitSeconds += secondsSince(T);
  if (!R)
    killAndReap();
  Chan.setProcess(0);
}

Expected<bool> Server::connect() {
  // One wait, on the compiler's first byte and its end at once; the stall
  // timeout does not run: a compiler may work for long before it asks.
  while (true) {
    Expected<bool> Ready =
        waitForFD(Ends.Out.get(), POLLIN, Clock::time_point::max());
    if (!Ready)
      return Ready.takeError();
    if (*Ready)
      break;
    if (!checkExited())
      continue;
    // Its end closed its descriptors: one that had opened BASE.out left
    // its bytes or, at least, a hang-up there.
    struct pollfd P = {Ends.Out.get(), POLLIN, 0};
    if (::poll(&P, 1, 0) > 0 && P.revents != 0)
      break;
    return false;
  }
  // The compiler opens BASE.in before BASE.out: it reads BASE.in now, and
  // this open finds a reader whatever it does next.
  const std::string InPath = Chan.getInboundPath();
  int FD = ::open(InPath.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (FD < 0)
    return makeErrnoError("cannot open '" + InPath + "' for writing");
  Ends.In.reset(FD);
  return true;
}

Error Server::writeAdvice(int FD, const char *Data, size_t Size) {
  size_t Done = 0;
  Clock::time_point Deadline = getStallDeadline();
  while (Done < Size) {
    ErrorOr<size_t> N = writeSome(FD, Data + Done, Size - Done);
    if (N && *N > 0) {
      Done += *N;
      continue;
    }
    if (!N && N.getError() == std::errc::broken_pipe)
      return makeError("the compiler closed '" + Chan.getInboundPath() +
                       "' before reading its advice");
    if (!N && N.getError() != std::errc::resource_unavailable_try_again)
      return makeErrnoError("cannot write advice to '" + Chan.getInboundPath() +
                                "'",
                            N.getError());
    // The FIFO is full: the compiler is not reading.
    Expected<bool> Ready = waitForFD(FD, POLLOUT, Deadline);
    if (!Ready)
      return Ready.takeError();
    if (*Ready)
      continue;
    if (checkExited())
      return makeError("the compiler exited before reading its advice");
    if (Clock::now() >= Deadline) {
      Stalled = true;
      killAndReap();
      return makeError("stalled");
    }
  }
  return Error::success();
}

Error Server::startLog(const LogHeader &H) {
  if (FirstHeader) {
    if (H.Features != FirstHeader->Features || H.Advice != FirstHeader->Advice)
      return makeError("session " + Twine(Stats.Sessions) +
                       " sent a different header than session 1; cannot "
                       "record both in '" +
                       Opts.LogPath + "'");
    return Error::success();
  }
  FirstHeader = H;
  if (Opts.LogPath.empty())
    return Error::success();
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(Opts.LogPath, EC);
  if (EC)
    return createStringError(EC, "cannot open log '%s': %s",
                             Opts.LogPath.c_str(), EC.message().c_str());
  LogStream = OS.get();
  std::vector<TensorSpec> Features = H.Features;
  Features.push_back(*H.Advice);
  Log = std::make_unique<LogWriter>(std::move(OS), std::move(Features));
  return Error::success();
}

Error Server::record(const LogHeader &H, const LogRecord &Rec,
                     const LogReader &Reader, const char *Advice) {
  if (!Log)
    return Error::success();
  Log->startObservation();
  for (size_t I = 0; I < H.Features.size(); ++I)
    Log->logTensorValue(I, Reader.getFeatureData(I));
  Log->logTensorValue(H.Features.size(), Advice);
  Log->endObservation();
  if (LogStream->has_error()) {
    std::error_code EC = LogStream->error();
    return createStringError(EC, "cannot write log '%s': %s",
                             Opts.LogPath.c_str(), EC.message().c_str());
  }
  return Error::success();
}

Error Server::explainBrokenStream(Error E, bool Closed) {
  if (Stalled) {
    consumeError(std::move(E));
    return makeError("the compiler sent nothing for " +
                     plural(Opts.TimeoutSeconds, "second") + " after " +
                     plural(Observations, "observation") + "; killed it");
  }
  // If the compiler closed its end, it is most likely exiting: its status
  // explains the broken stream better than the stream does.
  if (Closed)
    waitForExit();
  if (isReaped() && !getStatus().succeeded() && !Stalled) {
    consumeError(std::move(E));
    return make_error<CompilerExitError>(getStatus(), Observations,
                                         /*Connected=*/true);
  }
  killAndReap();
  return E;
}

Error Server::serveSession() {
  StreamClosed = false;
  InFD = Ends.In.get();
  return serveStream(std::make_unique<CompilerSource>(*this, Ends.Out.get()),
                     Chan.getOutboundPath(), ThePolicy, *this);
}

Error Server::start(const LogHeader &H) { return startLog(H); }

void Server::switchContext(StringRef Name) {
  ++Stats.Contexts;
  if (Log)
    Log->switchContext(Name);
}

Error Server::advise(const LogHeader &H, const LogRecord &Obs,
                     const LogReader &Reader, const char *Advice, size_t Size) {
  ++Observations;
  // EPIPE and friends: find out what happened to the compiler.
  if (Error E = writeAdvice(InFD, Advice, Size))
    return explainBrokenStream(std::move(E), /*Closed=*/true);
  ++Stats.Decisions;
  return record(H, Obs, Reader, Advice);
}

Error Server::streamBroken(Error E) {
  return explainBrokenStream(std::move(E), StreamClosed);
}

Expected<ServeStats> Server::run() {
  IgnoreSigPipe NoSigPipe;
  auto Finish = [&]() -> Expected<ServeStats> {
    Stats.ElapsedSeconds = secondsSince(Start);
    Stats.HostSeconds = std::max(0.0, Stats.ElapsedSeconds - WaitSeconds);
    Stats.Compiler = getStatus();
    if (Log) {
      Log->flush();
      if (LogStream->has_error()) {
        std::error_code EC = LogStream->error();
        LogStream->clear_error();
        return createStringError(EC, "cannot write log '%s': %s",
                                 Opts.LogPath.c_str(), EC.message().c_str());
      }
    }
    if (!getStatus().succeeded() || Stats.Sessions == 0)
      return make_error<CompilerExitError>(getStatus(), Observations,
                                           Stats.Sessions != 0);
    return Stats;
  };
  auto Fail = [&](Error E) -> Expected<ServeStats> {
    killAndReap();
    if (Log) {
      Log->flush();
      LogStream->clear_error();
    }
    return E;
  };
  while (true) {
    Expected<bool> Connected = connect();
    if (!Connected)
      return Fail(Connected.takeError());
    if (!*Connected)
      return Finish();
    ++Stats.Sessions;
    if (Error E = serveSession()) {
      if (E.isA<CompilerExitError>()) {
        Stats.ElapsedSeconds = secondsSince(Start);
        return E;
      }
      return Fail(std::move(E));
    }
    // The compiler closed BASE.out; it may exit or open the channel again.
    // The next session's ends are opened before this one's are closed:
    // BASE.in never has no writer, which a compiler reading it would take
    // for an end of file.
    Expected<ChannelEnds> Next = openEnds(Chan);
    if (!Next)
      return Fail(Next.takeError());
    Ends = std::move(*Next);
  }
}

} // namespace

SessionIO::~SessionIO() = default;

Error serveStream(std::unique_ptr<ByteSource> Stream, StringRef Name,
                  ServePolicy &P, SessionIO &IO) {
  auto ReaderOrErr = LogReader::create(std::move(Stream), Name);
  if (!ReaderOrErr)
    return IO.streamBroken(ReaderOrErr.takeError());
  LogReader &Reader = **ReaderOrErr;
  const LogHeader &H = Reader.getHeader();
  if (Error E = P.begin(H))
    return E;
  if (!H.Advice)
    return makeError(Name + ": the header declares no 'advice' tensor; is "
                            "this an interactive stream?");
  const size_t AdviceSize = H.Advice->getTotalTensorBufferSize();
  if (AdviceSize > MaxAdviceBytes)
    return makeError(Name + ": the header's advice tensor '" +
                     H.Advice->name() + "' has " + Twine(AdviceSize) +
                     " bytes, more than the " + Twine(MaxAdviceBytes) +
                     " a host accepts");
  if (Error E = IO.start(H))
    return E;
  std::vector<uint64_t> AdviceStorage((AdviceSize + 7) / 8 + 1, 0);
  char *Advice = reinterpret_cast<char *>(AdviceStorage.data());
  while (true) {
    auto Rec = Reader.next();
    if (!Rec)
      return IO.streamBroken(Rec.takeError());
    switch (Rec->TheKind) {
    case LogRecord::Kind::End:
      return Error::success();
    case LogRecord::Kind::Context:
      P.switchContext(Rec->Context);
      IO.switchContext(Rec->Context);
      break;
    case LogRecord::Kind::Outcome:
      return makeError(Name + ": byte " + Twine(Rec->Offset) +
                       ": unexpected outcome record in an interactive stream");
    case LogRecord::Kind::Observation:
      std::memset(Advice, 0, AdviceSize);
      if (Error E = P.decide(H, *Rec, Reader, Advice))
        return E;
      if (Error E = IO.advise(H, *Rec, Reader, Advice, AdviceSize))
        return E;
      break;
    }
  }
}

Expected<ServeStats> serveProcess(Channel &Chan, ChildProcess Compiler,
                                  ServePolicy &P, const ServeOptions &Opts) {
  // The compiler runs already: the ends are opened now, which works as
  // well (no open of either side waits for the other).
  Expected<ChannelEnds> Ends = openEnds(Chan);
  if (!Ends)
    return Ends.takeError();
  Server S(Chan, std::move(*Ends), std::move(Compiler), P, Opts);
  return S.run();
}

Expected<ServeStats> serveCommand(ArrayRef<std::string> Command, ServePolicy &P,
                                  const ServeOptions &Opts) {
  if (Command.empty())
    return makeError("no command to run");
  auto Chan = Channel::create();
  if (!Chan)
    return Chan.takeError();
  std::vector<std::string> Args;
  for (const std::string &A : Command)
    Args.push_back(substituteChannel(A, (*Chan)->getBase()));
  // Its own process group, killed whole; and killed by the kernel when this
  // host dies, since nobody would ever answer it again.
  // The host's ends first: the compiler's opens then never wait.
  Expected<ChannelEnds> Ends = openEnds(**Chan);
  if (!Ends)
    return Ends.takeError();
  SpawnOptions Spawn;
  Spawn.OwnProcessGroup = true;
  Spawn.DieWithParent = true;
  if (!Opts.StderrPath.empty())
    Spawn.Stderr = Opts.StderrPath;
  Expected<ChildProcess> Compiler = ChildProcess::spawn(Args, Spawn);
  if (!Compiler)
    return Compiler.takeError();
  Expected<ServeStats> S =
      Server(**Chan, std::move(*Ends), std::move(*Compiler), P, Opts).run();
  if (S || Opts.StderrPath.empty())
    return S;
  return handleErrors(S.takeError(), [&](std::unique_ptr<CompilerExitError> E) {
    E->StderrTail = readStderrTail(Opts.StderrPath);
    return Error(std::move(E));
  });
}

} // namespace mlgo

//===- InteractiveRunnerTest.cpp - The compiler side of the protocol ------===//
//
// InteractiveRunner must send exactly the bytes llvm::InteractiveModelRunner
// sends (so hosts written for stock LLVM work unchanged), and where LLVM
// would hang or abort it must report through its ErrorHandler instead.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Protocol/InteractiveRunner.h"

#include "ProtocolTestUtil.h"

#include "mlgo/Log/ByteSource.h"
#include "mlgo/Protocol/Host.h"

#include "llvm/Analysis/InteractiveModelRunner.h"
#include "llvm/IR/LLVMContext.h"
#include "gtest/gtest.h"

#include <chrono>
#include <fcntl.h>
#include <sys/wait.h>
#include <thread>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

/// A ByteSource that keeps a copy of everything it reads.
class TeeSource final : public ByteSource {
public:
  TeeSource(int FD, std::string &Copy) : FD(FD), Copy(Copy) {}
  Expected<size_t> read(char *Buf, size_t Size) override {
    ssize_t N;
    do
      N = ::read(FD, Buf, Size);
    while (N < 0 && errno == EINTR);
    if (N < 0)
      return createStringError(inconvertibleErrorCode(), "read failed");
    Copy.append(Buf, static_cast<size_t>(N));
    return static_cast<size_t>(N);
  }

private:
  int FD;
  std::string &Copy;
};

/// Plays the host by hand, answering observation I with I * 10 + 1, and
/// returns every byte the compiler sent.
std::string hostByHand(const Channel &C) {
  int In = ::open(C.getInboundPath().c_str(), O_WRONLY);
  int Out = ::open(C.getOutboundPath().c_str(), O_RDONLY);
  EXPECT_GE(In, 0);
  EXPECT_GE(Out, 0);
  std::string Bytes;
  auto Reader =
      LogReader::create(std::make_unique<TeeSource>(Out, Bytes), "compiler");
  EXPECT_TRUE(!!Reader) << toString(Reader.takeError());
  while (Reader) {
    auto Rec = (*Reader)->next();
    if (!Rec) {
      ADD_FAILURE() << toString(Rec.takeError());
      break;
    }
    if (Rec->TheKind == LogRecord::Kind::End)
      break;
    if (Rec->TheKind != LogRecord::Kind::Observation)
      continue;
    int64_t Advice = static_cast<int64_t>(Rec->Index) * 10 + 1;
    writeAllOrExit(In, std::string(reinterpret_cast<char *>(&Advice), 8), 99);
  }
  ::close(In);
  ::close(Out);
  return Bytes;
}

/// Runs \p Compiler in a child against a hand-played host; returns the
/// bytes it sent. The child's status must be 0.
template <typename F> std::string runAgainstHandHost(F Compiler) {
  auto C = Channel::create();
  EXPECT_TRUE(!!C) << toString(C.takeError());
  pid_t Pid = ::fork();
  if (Pid == 0) {
    Compiler(**C);
    ::_exit(0);
  }
  std::string Bytes = hostByHand(**C);
  int Status = 0;
  ::waitpid(Pid, &Status, 0);
  EXPECT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0)
      << "compiler child status " << Status;
  return Bytes;
}

/// The compiler's side of the sample exchange, for either runner type.
template <typename RunnerT> void playCompiler(RunnerT &R) {
  R.switchContext("ctx");
  for (int64_t I = 0; I < 3; ++I) {
    *R.template getTensor<int64_t>(0) = I;
    float *Y = R.template getTensor<float>(1);
    Y[0] = 0.5f + I;
    Y[1] = '\n';
    if (R.template evaluate<int64_t>() != I * 10 + 1)
      ::_exit(10 + static_cast<int>(I));
  }
}

TEST(InteractiveRunnerTest, SendsTheBytesLLVMSends) {
  Watchdog W;
  std::string FromLLVM = runAgainstHandHost([](const Channel &C) {
    LLVMContext Ctx;
    std::vector<llvm::TensorSpec> Specs = {
        llvm::TensorSpec::createSpec<int64_t>("x", {1}),
        llvm::TensorSpec::createSpec<float>("y", {2})};
    llvm::InteractiveModelRunner R(
        Ctx, Specs, llvm::TensorSpec::createSpec<int64_t>("decision", {1}),
        C.getOutboundPath(), C.getInboundPath());
    playCompiler(R);
  });
  std::string FromMLGO = runAgainstHandHost([](const Channel &C) {
    InteractiveRunner R(sampleFeatures(), sampleAdvice(), C.getOutboundPath(),
                        C.getInboundPath(), [](Error E) {
                          consumeError(std::move(E));
                          ::_exit(50);
                        });
    playCompiler(R);
  });
  EXPECT_FALSE(FromLLVM.empty());
  EXPECT_EQ(FromMLGO, FromLLVM);
  EXPECT_EQ(FromMLGO.substr(0, FromMLGO.find('\n')),
            "{\"features\":[{\"name\":\"x\",\"type\":\"int64_t\",\"port\":0,"
            "\"shape\":[1]},{\"name\":\"y\",\"type\":\"float\",\"port\":0,"
            "\"shape\":[2]}],\"advice\":{\"name\":\"decision\",\"type\":"
            "\"int64_t\",\"port\":0,\"shape\":[1]}}");
}

TEST(InteractiveRunnerTest, HostClosingEarlyIsReportedNotAHang) {
  Watchdog W;
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  std::thread Host([&] {
    int In = ::open((*C)->getInboundPath().c_str(), O_WRONLY);
    int Out = ::open((*C)->getOutboundPath().c_str(), O_RDONLY);
    auto Reader = LogReader::create(createFDSource(Out, false), "compiler");
    ASSERT_TRUE(!!Reader) << toString(Reader.takeError());
    for (int I = 0; I < 2; ++I) // The context, then observation 0.
      ASSERT_TRUE(!!(*Reader)->next());
    ::write(In, "\x01\x00\x00", 3); // 3 of the 8 bytes, then hang up.
    ::close(In);
    ::close(Out);
  });
  std::vector<std::string> Errors;
  {
    InteractiveRunner R(
        sampleFeatures(), sampleAdvice(), (*C)->getOutboundPath(),
        (*C)->getInboundPath(),
        [&](Error E) { Errors.push_back(toString(std::move(E))); });
    R.switchContext("ctx");
    *R.getTensor<int64_t>(0) = 42;
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
    EXPECT_FALSE(R.isConnected());
    // Later evaluations return zeros without talking to anyone.
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
    Host.join();
  }
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "inbound channel '" + (*C)->getInboundPath() +
                           "' was closed after 3 of 8 bytes of the advice for "
                           "observation 0");
}

TEST(InteractiveRunnerTest, APartialAdviceTimesOutNamingTheChannel) {
  Watchdog W;
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  int In = -1, Out = -1;
  std::thread Host([&] {
    In = ::open((*C)->getInboundPath().c_str(), O_WRONLY);
    Out = ::open((*C)->getOutboundPath().c_str(), O_RDONLY);
    auto Reader = LogReader::create(createFDSource(Out, false), "compiler");
    ASSERT_TRUE(!!Reader) << toString(Reader.takeError());
    for (int I = 0; I < 2; ++I) // The context, then observation 0.
      ASSERT_TRUE(!!(*Reader)->next());
    ::write(In, "\x01\x00\x00", 3); // 3 of the 8 bytes; the file stays open.
  });
  std::vector<std::string> Errors;
  {
    InteractiveRunner R(
        sampleFeatures(), sampleAdvice(), (*C)->getOutboundPath(),
        (*C)->getInboundPath(),
        [&](Error E) { Errors.push_back(toString(std::move(E))); },
        /*TimeoutSeconds=*/1);
    R.switchContext("ctx");
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
    EXPECT_FALSE(R.isConnected());
    Host.join();
  }
  ::close(In);
  ::close(Out);
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "inbound channel '" + (*C)->getInboundPath() +
                           "': no advice for observation 0 after 1 s (3 of "
                           "its 8 bytes came; a host that stopped?)");
}

TEST(InteractiveRunnerTest, SurplusAdviceBytesAreAnError) {
  Watchdog W;
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  std::thread Host([&] {
    int In = ::open((*C)->getInboundPath().c_str(), O_WRONLY);
    int Out = ::open((*C)->getOutboundPath().c_str(), O_RDONLY);
    auto Reader = LogReader::create(createFDSource(Out, false), "compiler");
    ASSERT_TRUE(!!Reader) << toString(Reader.takeError());
    for (int I = 0; I < 2; ++I) // The context, then observation 0.
      ASSERT_TRUE(!!(*Reader)->next());
    // Two advice tensors and a half for one observation, in one write.
    int64_t Advice[3] = {1, 7, 0};
    ::write(In, Advice, 20);
    // Read until the runner hangs up, so that it never blocks writing.
    while (true) {
      auto Rec = (*Reader)->next();
      if (!Rec) {
        consumeError(Rec.takeError());
        break;
      }
      if (Rec->TheKind == LogRecord::Kind::End)
        break;
    }
    ::close(In);
    ::close(Out);
  });
  std::vector<std::string> Errors;
  {
    InteractiveRunner R(
        sampleFeatures(), sampleAdvice(), (*C)->getOutboundPath(),
        (*C)->getInboundPath(),
        [&](Error E) { Errors.push_back(toString(std::move(E))); });
    R.switchContext("ctx");
    // The surplus is seen before the advice is used.
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
    EXPECT_FALSE(R.isConnected());
  }
  Host.join();
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "inbound channel '" + (*C)->getInboundPath() +
                           "': 12 bytes after the advice for observation 0 "
                           "(an advice is 8 bytes; the host sent more than it "
                           "was asked for)");
}

TEST(InteractiveRunnerTest, AHostThatNeverComesTimesOut) {
  Watchdog W;
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  std::vector<std::string> Errors;
  InteractiveRunner R(
      sampleFeatures(), sampleAdvice(), (*C)->getOutboundPath(),
      (*C)->getInboundPath(),
      [&](Error E) { Errors.push_back(toString(std::move(E))); },
      /*TimeoutSeconds=*/1);
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "cannot open outbound channel '" +
                           (*C)->getOutboundPath() +
                           "': no host opened it for reading within 1 s");
  EXPECT_EQ(R.evaluate<int64_t>(), 0);
  EXPECT_EQ(Errors.size(), 1u);
}

TEST(InteractiveRunnerTest, AHostThatStopsReadingTimesOutNamingTheWrite) {
  Watchdog W;
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  int In = -1, Out = -1;
  std::thread Host([&] {
    In = ::open((*C)->getInboundPath().c_str(), O_WRONLY);
    Out = ::open((*C)->getOutboundPath().c_str(), O_RDONLY);
    // The host never reads: a one-page pipe fills with the header.
    ::fcntl(Out, F_SETPIPE_SZ, 4096);
  });
  // One observation of 256 KiB: more than any pipe buffer holds.
  std::vector<mlgo::TensorSpec> Features = {
      mlgo::TensorSpec::createSpec<float>("big", {65536})};
  std::vector<std::string> Errors;
  {
    InteractiveRunner R(
        Features, sampleAdvice(), (*C)->getOutboundPath(),
        (*C)->getInboundPath(),
        [&](Error E) { Errors.push_back(toString(std::move(E))); },
        /*TimeoutSeconds=*/1);
    Host.join();
    auto Start = std::chrono::steady_clock::now();
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
    EXPECT_FALSE(R.isConnected());
    // One timeout, not one per buffer of the observation.
    EXPECT_LT(std::chrono::steady_clock::now() - Start,
              std::chrono::seconds(5));
    EXPECT_EQ(R.evaluate<int64_t>(), 0);
  }
  ::close(In);
  ::close(Out);
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "outbound channel '" + (*C)->getOutboundPath() +
                           "': the host read nothing of observation 0 for 1 "
                           "s (a host that stopped reading?)");
}

TEST(InteractiveRunnerTest, AHostThatClosesItsEndNamesTheWrite) {
  Watchdog W; // Ignores SIGPIPE: the write fails with EPIPE.
  auto C = Channel::create();
  ASSERT_TRUE(!!C) << toString(C.takeError());
  int In = -1;
  std::thread Host([&] {
    In = ::open((*C)->getInboundPath().c_str(), O_WRONLY);
    int Out = ::open((*C)->getOutboundPath().c_str(), O_RDONLY);
    auto Reader = LogReader::create(createFDSource(Out, false), "compiler");
    ASSERT_TRUE(!!Reader) << toString(Reader.takeError());
    ::close(Out); // After the header; the inbound end stays open.
  });
  std::vector<std::string> Errors;
  {
    InteractiveRunner R(
        sampleFeatures(), sampleAdvice(), (*C)->getOutboundPath(),
        (*C)->getInboundPath(),
        [&](Error E) { Errors.push_back(toString(std::move(E))); },
        /*TimeoutSeconds=*/1);
    Host.join();
    R.switchContext("ctx");
    EXPECT_FALSE(R.isConnected());
  }
  ::close(In);
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "cannot write context 'ctx' to outbound channel '" +
                           (*C)->getOutboundPath() + "': Broken pipe");
}

TEST(InteractiveRunnerTest, OpenFailureNamesThePath) {
  std::vector<std::string> Errors;
  InteractiveRunner R(sampleFeatures(), sampleAdvice(), "/nonexistent/c.out",
                      "/nonexistent/c.in", [&](Error E) {
                        Errors.push_back(toString(std::move(E)));
                      });
  ASSERT_EQ(Errors.size(), 1u);
  EXPECT_EQ(Errors[0], "cannot open inbound channel '/nonexistent/c.in': No "
                       "such file or directory");
  R.switchContext("ignored");
  EXPECT_EQ(R.evaluate<int64_t>(), 0);
  EXPECT_EQ(Errors.size(), 1u);
}

} // namespace

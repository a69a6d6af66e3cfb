//===- TrainingLogTest.cpp - Training log writer and reader ---------------===//
//
// The writer must produce the bytes LLVM 19's own llvm::Logger produces, so
// the tests drive both with the same calls and compare. The reader must
// read everything back and name the byte offset of any damage.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Log/TrainingLog.h"

#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Analysis/Utils/TrainingLogger.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

struct Fixture {
  std::vector<mlgo::TensorSpec> Specs = {
      mlgo::TensorSpec::createSpec<int64_t>("a", {1}),
      mlgo::TensorSpec::createSpec<float>("b", {2, 2}),
      mlgo::TensorSpec::createSpec<int32_t>("c", {3}, 2)};
  std::vector<llvm::TensorSpec> LLVMSpecs = {
      llvm::TensorSpec::createSpec<int64_t>("a", {1}),
      llvm::TensorSpec::createSpec<float>("b", {2, 2}),
      llvm::TensorSpec::createSpec<int32_t>("c", {3}, 2)};
  // Values chosen so the raw bytes contain '\n' (0x0a) and '{'.
  int64_t A = 0x0a0a0a0a;
  float B[4] = {1.5f, -2.0f, 0.0f, 1e-20f};
  int32_t C[3] = {'{', '\n', -7};
};

/// Writes the same log through llvm::Logger and mlgo::LogWriter.
template <typename WriterT> void writeSample(WriterT &W, Fixture &F) {
  const char *Buffers[] = {reinterpret_cast<const char *>(&F.A),
                           reinterpret_cast<const char *>(F.B),
                           reinterpret_cast<const char *>(F.C)};
  W.switchContext("first");
  for (int I = 0; I < 3; ++I) {
    W.startObservation();
    for (size_t J = 0; J < 3; ++J)
      W.logTensorValue(J, Buffers[J]);
    W.endObservation();
    W.template logReward<float>(0.25f * I);
    ++F.A;
  }
  W.switchContext("second context \"quoted\"");
  W.startObservation();
  for (size_t J = 0; J < 3; ++J)
    W.logTensorValue(J, Buffers[J]);
  W.endObservation();
  W.switchContext("first");
  W.startObservation();
  for (size_t J = 0; J < 3; ++J)
    W.logTensorValue(J, Buffers[J]);
  W.endObservation();
}

std::string writeWithLLVM(bool WithReward, bool WithAdvice) {
  Fixture F;
  std::string Out;
  auto OS = std::make_unique<raw_string_ostream>(Out);
  std::optional<llvm::TensorSpec> Advice;
  if (WithAdvice)
    Advice = llvm::TensorSpec::createSpec<int64_t>("advice", {1});
  {
    Logger L(std::move(OS), F.LLVMSpecs,
             llvm::TensorSpec::createSpec<float>("reward", {1}), WithReward,
             Advice);
    if (WithReward) {
      writeSample(L, F);
    } else {
      L.switchContext("only");
      L.startObservation();
      L.logTensorValue(0, reinterpret_cast<const char *>(&F.A));
      L.logTensorValue(1, reinterpret_cast<const char *>(F.B));
      L.logTensorValue(2, reinterpret_cast<const char *>(F.C));
      L.endObservation();
    }
    L.flush();
  }
  return Out;
}

std::string writeWithMLGO(bool WithReward, bool WithAdvice) {
  Fixture F;
  std::string Out;
  std::optional<mlgo::TensorSpec> Reward, Advice;
  if (WithReward)
    Reward = mlgo::TensorSpec::createSpec<float>("reward", {1});
  if (WithAdvice)
    Advice = mlgo::TensorSpec::createSpec<int64_t>("advice", {1});
  {
    LogWriter W(std::make_unique<raw_string_ostream>(Out), F.Specs, Reward,
                Advice);
    if (WithReward) {
      writeSample(W, F);
    } else {
      W.switchContext("only");
      W.logObservation({&F.A, F.B, F.C});
    }
  }
  return Out;
}

TEST(TrainingLogTest, WriterBytesMatchLLVMLogger) {
  std::string Ours = writeWithMLGO(true, false);
  EXPECT_EQ(Ours, writeWithLLVM(true, false));
  EXPECT_EQ(writeWithMLGO(false, true), writeWithLLVM(false, true));
  EXPECT_EQ(writeWithMLGO(true, true), writeWithLLVM(true, true));
  // And the header is the documented one.
  EXPECT_EQ(Ours.substr(0, Ours.find('\n')),
            "{\"features\":[{\"name\":\"a\",\"type\":\"int64_t\",\"port\":0,"
            "\"shape\":[1]},{\"name\":\"b\",\"type\":\"float\",\"port\":0,"
            "\"shape\":[2,2]},{\"name\":\"c\",\"type\":\"int32_t\",\"port\":2,"
            "\"shape\":[3]}],\"score\":{\"name\":\"reward\",\"type\":\"float\","
            "\"port\":0,\"shape\":[1]}}");
}

std::unique_ptr<LogReader> readerFor(StringRef Bytes) {
  auto R = LogReader::create(
      createMemorySource(MemoryBuffer::getMemBufferCopy(Bytes)), "t.log");
  EXPECT_TRUE(!!R) << toString(R.takeError());
  return std::move(*R);
}

TEST(TrainingLogTest, ReaderRoundTripsContextsObservationsOutcomes) {
  std::string Bytes = writeWithMLGO(true, true);
  auto R = readerFor(Bytes);
  ASSERT_TRUE(R);
  const LogHeader &H = R->getHeader();
  ASSERT_EQ(H.Features.size(), 3u);
  EXPECT_EQ(H.Features[1], mlgo::TensorSpec::createSpec<float>("b", {2, 2}));
  EXPECT_EQ(*H.Score, mlgo::TensorSpec::createSpec<float>("reward", {1}));
  EXPECT_EQ(*H.Advice, mlgo::TensorSpec::createSpec<int64_t>("advice", {1}));
  EXPECT_EQ(H.getObservationSize(), 8u + 16u + 12u);

  std::vector<std::string> Seen;
  Fixture F;
  while (true) {
    auto Rec = R->next();
    ASSERT_TRUE(!!Rec) << toString(Rec.takeError());
    if (Rec->TheKind == LogRecord::Kind::End)
      break;
    switch (Rec->TheKind) {
    case LogRecord::Kind::Context:
      Seen.push_back("ctx " + Rec->Context);
      break;
    case LogRecord::Kind::Observation: {
      int64_t A;
      memcpy(&A, R->getFeatureData(0), 8);
      Seen.push_back("obs " + Rec->Context + " " + std::to_string(Rec->Index) +
                     " a=" + std::to_string(A - F.A));
      EXPECT_EQ(memcmp(R->getFeatureData(1), F.B, sizeof(F.B)), 0);
      EXPECT_EQ(memcmp(R->getFeatureData(2), F.C, sizeof(F.C)), 0);
      break;
    }
    case LogRecord::Kind::Outcome: {
      float V;
      memcpy(&V, Rec->Data.data(), 4);
      Seen.push_back("out " + std::to_string(Rec->Index) + " " +
                     std::to_string(V));
      break;
    }
    case LogRecord::Kind::End:
      break;
    }
  }
  std::vector<std::string> Expected = {"ctx first",
                                       "obs first 0 a=0",
                                       "out 0 0.000000",
                                       "obs first 1 a=1",
                                       "out 1 0.250000",
                                       "obs first 2 a=2",
                                       "out 2 0.500000",
                                       "ctx second context \"quoted\"",
                                       "obs second context \"quoted\" 0 a=3",
                                       "ctx first",
                                       "obs first 3 a=3"};
  EXPECT_EQ(Seen, Expected);
  EXPECT_EQ(R->getOffset(), Bytes.size());
}

std::string firstError(StringRef Bytes) {
  auto R = LogReader::create(
      createMemorySource(MemoryBuffer::getMemBufferCopy(Bytes)), "t.log");
  if (!R)
    return toString(R.takeError());
  while (true) {
    auto Rec = (*R)->next();
    if (!Rec)
      return toString(Rec.takeError());
    if (Rec->TheKind == LogRecord::Kind::End)
      return "no error";
  }
}

const char *Header1 =
    "{\"features\":[{\"name\":\"x\",\"type\":\"int64_t\",\"port\":0,"
    "\"shape\":[2]}]}\n";

TEST(TrainingLogTest, TruncatedTensorNamesOffsetAndSizes) {
  std::string Log = std::string(Header1) + "{\"context\":\"m\"}\n" +
                    "{\"observation\":0}\n" + std::string(5, 'z');
  size_t ObsData = strlen(Header1) + strlen("{\"context\":\"m\"}\n") +
                   strlen("{\"observation\":0}\n");
  EXPECT_EQ(firstError(Log),
            "t.log: byte " + std::to_string(ObsData) +
                ": truncated observation 0: expected 16 bytes of tensor data, "
                "got 5");
  EXPECT_EQ(firstError(std::string(Header1) + "{\"context\":\"m\"}\n" +
                       "{\"observation\":0}\n" + std::string(16, 'z')),
            "t.log: byte " + std::to_string(ObsData + 16) +
                ": truncated observation 0: input ended before the newline "
                "that follows the tensor data");
}

TEST(TrainingLogTest, WrongTensorSizeIsCorruption) {
  // 17 bytes where the header says 16: the byte after the data is not '\n'.
  std::string Log = std::string(Header1) + "{\"context\":\"m\"}\n" +
                    "{\"observation\":0}\n" + std::string(17, 'z') + "\n";
  size_t At = Log.size() - 2;
  EXPECT_EQ(firstError(Log),
            "t.log: byte " + std::to_string(At) +
                ": corrupt observation 0: expected a newline after 16 bytes "
                "of tensor data, found byte 0x7a (does the header describe "
                "the tensors correctly?)");
}

TEST(TrainingLogTest, BadHeader) {
  EXPECT_EQ(firstError(""), "t.log: byte 0: empty input: expected a JSON "
                            "header line");
  EXPECT_EQ(firstError("not json\n"),
            "t.log: byte 0: bad header: [1:2, byte=2]: Invalid JSON value "
            "(null?)");
  EXPECT_EQ(firstError("{\"feature\":[]}\n"),
            "t.log: byte 0: bad header: missing array key 'features'");
  EXPECT_EQ(firstError("{\"features\":[{\"name\":\"x\",\"type\":\"bool\","
                       "\"port\":0,\"shape\":[1]}]}\n"),
            "t.log: byte 0: bad header: invalid tensor spec {\"name\":\"x\","
            "\"port\":0,\"shape\":[1],\"type\":\"bool\"}: unknown type 'bool' "
            "(expected one of float, double, int8_t, uint8_t, int16_t, "
            "uint16_t, int32_t, uint32_t, int64_t, uint64_t)");
  EXPECT_EQ(firstError("{\"features\":[]"),
            "t.log: byte 0: truncated line: input ended after 14 bytes, "
            "before the terminating newline");
}

TEST(TrainingLogTest, HeaderSizesAreCapped) {
  // A header may not promise more tensor data per observation than 64 MiB
  // (fuzz/regressions/log/): the reader would allocate what it promises.
  EXPECT_EQ(firstError("{\"features\":[{\"name\":\"x\",\"type\":"
                       "\"int64_t\",\"port\":0,\"shape\":[4194304]},"
                       "{\"name\":\"y\",\"type\":\"int64_t\",\"port\":0,"
                       "\"shape\":[4194304]},{\"name\":\"z\",\"type\":"
                       "\"int8_t\",\"port\":0,\"shape\":[1]}]}\n"),
            "t.log: byte 0: bad header: an observation would hold more than "
            "67108864 bytes of tensor data (feature 'z' ends at byte "
            "67108865)");
  EXPECT_EQ(firstError("{\"features\":[],\"score\":{\"name\":\"r\","
                       "\"type\":\"float\",\"port\":0,\"shape\":"
                       "[16777217]}}\n"),
            "t.log: byte 0: bad header: the score tensor would hold 67108868 "
            "bytes, more than 67108864");
  // A large tensor that is not there is an error about the bytes that are.
  std::string Big = "{\"features\":[{\"name\":\"x\",\"type\":\"int64_t\","
                    "\"port\":0,\"shape\":[8000000]}]}\n";
  EXPECT_EQ(firstError(Big + "{\"context\":\"m\"}\n{\"observation\":0}\n" +
                       std::string(70000, 'z')),
            "t.log: byte " +
                std::to_string(Big.size() + strlen("{\"context\":\"m\"}\n") +
                               strlen("{\"observation\":0}\n")) +
                ": truncated observation 0: expected 64000000 bytes of tensor "
                "data, got 70000");
}

TEST(TrainingLogTest, ObservationOutOfOrder) {
  std::string Zeros(16, '\0');
  std::string Log = std::string(Header1) + "{\"context\":\"m\"}\n" +
                    "{\"observation\":0}\n" + Zeros + "\n" +
                    "{\"observation\":2}\n" + Zeros + "\n";
  size_t At = Log.size() - 17 - strlen("{\"observation\":2}\n");
  EXPECT_EQ(firstError(Log),
            "t.log: byte " + std::to_string(At) +
                ": observation number out of order in context 'm': expected "
                "1, got 2");
  EXPECT_EQ(firstError(std::string(Header1) + "{\"observation\":0}\n"),
            "t.log: byte " + std::to_string(strlen(Header1)) +
                ": observation 0 appears before any {\"context\":...} line");
}

TEST(TrainingLogTest, OutcomeChecks) {
  std::string Zeros(16, '\0');
  // No score in the header.
  std::string Log = std::string(Header1) + "{\"context\":\"m\"}\n" +
                    "{\"observation\":0}\n" + Zeros + "\n" +
                    "{\"outcome\":0}\n";
  EXPECT_EQ(firstError(Log),
            "t.log: byte " + std::to_string(Log.size() - 14) +
                ": outcome 0 found, but the header declares no score");
  EXPECT_EQ(
      firstError(std::string(Header1) + "{\"context\":\"m\"}\n" +
                 "{\"bogus\":1}\n"),
      "t.log: byte " +
          std::to_string(strlen(Header1) + strlen("{\"context\":\"m\"}\n")) +
          ": unknown record 'bogus' (expected context, observation or "
          "outcome)");
}

} // namespace

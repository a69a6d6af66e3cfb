//===- mlgo/Log/TrainingLog.h - LLVM's training log format ------*- C++ -*-===//
//
// Writer and reader for the log LLVM's MLGO passes produce in development
// mode (llvm/Analysis/Utils/TrainingLogger.h) and stream over the interactive
// protocol. The writer's output is byte-identical to llvm::Logger's for the
// same calls; the reader accepts anything llvm::Logger writes.
//
// Format, in order (all multi-byte scalars in host byte order: the reader is
// assumed to run on the machine that wrote the log):
//
//  1. Header: one line of compact JSON, then '\n':
//       {"features":[SPEC,...],"score":SPEC,"advice":SPEC}
//     SPEC is a TensorSpec as {"name":..,"type":..,"port":..,"shape":[..]}.
//     "features" lists the tensors of every observation, in order. "score"
//     (the reward) and "advice" (the decision tensor, interactive mode only)
//     are optional and appear in that order when present. When only logging,
//     the last feature is conventionally the decision taken (e.g.
//     "inlining_decision").
//  2. Any number of contexts (independent traces: one per module for the
//     inliner, one per function for regalloc), each starting with the line
//       {"context":"NAME"}\n
//     A context name may repeat; observation numbering then continues.
//  3. Within a context, observations:
//       {"observation":N}\n        N counts from 0 in each context
//       <feature 0 bytes><feature 1 bytes>...<feature K-1 bytes>
//       \n
//     Feature I occupies exactly product(shape_I) * sizeof(type_I) bytes,
//     with no padding and no separators (the bytes may contain '\n').
//  4. Optionally after an observation, when the header has a "score":
//       {"outcome":N}\n            N = the number of that observation
//       <score bytes>
//       \n
//
// Nothing marks the end of the log: it ends at end of file (or when the
// compiler closes the pipe).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LOG_TRAININGLOG_H
#define MLGO_LOG_TRAININGLOG_H

#include "mlgo/Log/ByteSource.h"
#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// What the header line of a log declares.
struct LogHeader {
  std::vector<TensorSpec> Features;
  std::optional<TensorSpec> Score;
  std::optional<TensorSpec> Advice;

  /// Total bytes of one observation's tensor data.
  size_t getObservationSize() const;
  /// Index of the feature called \p Name, if any.
  std::optional<size_t> findFeature(llvm::StringRef Name) const;
};

/// Writes a training log. Mirrors llvm::Logger call for call: the header is
/// written by the constructor; then switchContext, startObservation,
/// logTensorValue for every feature in order, endObservation, and optionally
/// logReward. The writer does not flush on its own; call flush() (or destroy
/// it) to push the bytes out.
class LogWriter {
public:
  LogWriter(std::unique_ptr<llvm::raw_ostream> OS,
            std::vector<TensorSpec> FeatureSpecs,
            std::optional<TensorSpec> RewardSpec = std::nullopt,
            std::optional<TensorSpec> AdviceSpec = std::nullopt);
  /// A log written to a file: flushAndTakeError() can then see and report
  /// its write errors.
  LogWriter(std::unique_ptr<llvm::raw_fd_ostream> File,
            std::vector<TensorSpec> FeatureSpecs,
            std::optional<TensorSpec> RewardSpec = std::nullopt,
            std::optional<TensorSpec> AdviceSpec = std::nullopt)
      : LogWriter(std::unique_ptr<llvm::raw_ostream>(File.release()),
                  std::move(FeatureSpecs), std::move(RewardSpec),
                  std::move(AdviceSpec)) {
    this->File = static_cast<llvm::raw_fd_ostream *>(OS.get());
  }
  ~LogWriter();

  void switchContext(llvm::StringRef Name);
  void startObservation();
  void logTensorValue(size_t FeatureID, const void *RawData);
  void endObservation();
  template <typename T> void logReward(T Value) {
    assert(RewardSpec && RewardSpec->isElementType<T>() &&
           "reward type does not match the header's score spec");
    logRewardRaw(&Value);
  }
  void logRewardRaw(const void *RawData);

  /// Writes one whole observation: startObservation, every feature in
  /// order from \p Buffers, endObservation.
  void logObservation(llvm::ArrayRef<const void *> Buffers);

  const std::string &currentContext() const { return CurrentContext; }
  bool hasObservationInProgress() const {
    return ObservationIDs.count(CurrentContext) != 0;
  }
  const std::vector<TensorSpec> &getFeatureSpecs() const {
    return FeatureSpecs;
  }
  void flush() { OS->flush(); }
  /// Flushes, and returns the error of a file stream that failed to write
  /// (a full disk), clearing it: raw_fd_ostream's destructor would
  /// otherwise stop the process with an "IO failure on output stream" that
  /// names no file.
  std::error_code flushAndTakeError() {
    OS->flush();
    if (!File || !File->has_error())
      return {};
    std::error_code EC = File->error();
    File->clear_error();
    return EC;
  }

private:
  std::unique_ptr<llvm::raw_ostream> OS;
  /// OS, when it is a file.
  llvm::raw_fd_ostream *File = nullptr;
  const std::vector<TensorSpec> FeatureSpecs;
  const std::optional<TensorSpec> RewardSpec;
  llvm::StringMap<size_t> ObservationIDs;
  std::string CurrentContext;
};

/// One record of a log, as the reader returns it.
struct LogRecord {
  enum class Kind { Context, Observation, Outcome, End };
  Kind TheKind = Kind::End;
  /// The context this record belongs to (for Context: the new context).
  std::string Context;
  /// Observation number (Observation and Outcome).
  size_t Index = 0;
  /// Byte offset in the stream where the record's JSON line starts.
  uint64_t Offset = 0;
  /// Observation: all tensors back to back; Outcome: the score bytes.
  std::vector<char> Data;
};

/// Reads a training log record by record, sizing tensors from the header.
/// Errors name the source, the byte offset and what was expected, e.g.
///   x.log: byte 1234: truncated observation 2: expected 312 bytes of tensor
///   data, got 17
class LogReader {
public:
  /// Reads and validates the header. \p Name identifies the source in
  /// error messages (usually the file name).
  static llvm::Expected<std::unique_ptr<LogReader>>
  create(std::unique_ptr<ByteSource> Source, llvm::StringRef Name);
  /// Convenience: open a file ("-" for standard input) and read its header.
  static llvm::Expected<std::unique_ptr<LogReader>> open(llvm::StringRef Path);

  const LogHeader &getHeader() const { return Header; }
  const std::string &getName() const { return Name; }

  /// Reads the next record. Returns a record of Kind::End at the end of
  /// input (which is only legal between records).
  llvm::Expected<const LogRecord &> next();

  /// Byte offset of the next unread byte.
  uint64_t getOffset() const { return Consumed; }

  /// For the most recent Observation record: the bytes of feature \p I.
  const char *getFeatureData(size_t I) const {
    return Current.Data.data() + FeatureOffsets[I];
  }

private:
  LogReader(std::unique_ptr<ByteSource> Source, std::string Name)
      : Source(std::move(Source)), Name(std::move(Name)) {}

  llvm::Error readHeader();
  /// Reads one '\n'-terminated line (without the '\n'). Sets \p AtEnd if
  /// the input ended before any byte of the line.
  llvm::Error readLine(std::string &Line, bool &AtEnd, size_t MaxLength);
  /// Reads exactly \p Size bytes; returns how many could be read.
  llvm::Expected<size_t> readExact(char *Out, size_t Size);
  llvm::Error fill();
  llvm::Error makeError(uint64_t Offset, const llvm::Twine &Message) const;
  llvm::Error readPayload(const llvm::Twine &What, size_t Size,
                          std::vector<char> &Out);

  std::unique_ptr<ByteSource> Source;
  std::string Name;
  LogHeader Header;
  std::vector<size_t> FeatureOffsets;

  std::vector<char> Buffer;
  size_t BufferPos = 0;
  size_t BufferEnd = 0;
  bool SourceEnded = false;
  uint64_t Consumed = 0;

  LogRecord Current;
  bool HaveContext = false;
  std::string CurrentContext;
  /// Next expected observation number per context.
  llvm::StringMap<size_t> NextObservation;
  /// Whether the last record was an observation of the current context
  /// that has not had its outcome yet.
  bool OutcomeAllowed = false;
};

} // namespace mlgo

#endif // MLGO_LOG_TRAININGLOG_H

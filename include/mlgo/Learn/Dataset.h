//===- mlgo/Learn/Dataset.h - Labelled examples for training ----*- C++ -*-===//
//
// A Dataset is a table of training examples: a fixed-width row of raw
// feature values (the model's input features in model-input order, before
// any preprocessing), a 0/1 label, a non-negative weight and an optional
// group id (e.g. the module the decision was taken in; -1 for none). The
// training loop fills it from mlgo's training logs; this file only holds it
// and saves and loads it.
//
// Feature values are floats: integers up to 2^24 in magnitude are exact,
// larger ones are rounded (a relative error of at most 2^-24, which the
// normalization statistics do not notice; the interpreter, fed the same
// float value, computes the same normalized value).
//
// Binary file format, version 1, all integers and floats little-endian:
//
//   offset  size        field
//   0       8           magic "MLGODSET"
//   8       4           u32 version = 1
//   12      4           u32 F, the number of features
//   16      8           u64 N, the number of rows
//   24      ...         F feature names: u32 length, then that many bytes
//   then    N * 4F      feature values, row-major, IEEE binary32
//   then    N           labels, one byte each, 0 or 1
//   then    N * 4       weights, IEEE binary32
//   then    N * 8       group ids, two's-complement i64
//   then    4           u32 CRC-32 (zlib polynomial) of every byte before it
//
// save() writes a temporary file next to the target and renames it, so a
// reader never sees a half-written dataset.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_DATASET_H
#define MLGO_LEARN_DATASET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {
namespace learn {

class Dataset {
public:
  /// Group id of a row that belongs to no group.
  static constexpr int64_t NoGroup = -1;

  Dataset() = default;
  /// An empty dataset whose rows have one value per name.
  explicit Dataset(std::vector<std::string> FeatureNames);

  size_t getNumFeatures() const { return FeatureNames.size(); }
  size_t size() const { return Labels.size(); }
  bool empty() const { return Labels.empty(); }
  const std::vector<std::string> &getFeatureNames() const {
    return FeatureNames;
  }
  /// Index of the feature called \p Name, or -1.
  int64_t getFeatureIndex(llvm::StringRef Name) const;

  /// Appends a row. \p Features has getNumFeatures() values, \p Label is 0
  /// or 1, \p Weight is finite and >= 0 (asserted).
  void addRow(llvm::ArrayRef<float> Features, int Label, float Weight = 1,
              int64_t Group = NoGroup);
  /// Reserves room for \p N rows.
  void reserve(size_t N);

  llvm::ArrayRef<float> row(size_t I) const {
    return llvm::ArrayRef<float>(Features.data() + I * getNumFeatures(),
                                 getNumFeatures());
  }
  float feature(size_t Row, size_t F) const {
    return Features[Row * getNumFeatures() + F];
  }
  int label(size_t I) const { return Labels[I]; }
  float weight(size_t I) const { return Weights[I]; }
  int64_t group(size_t I) const { return Groups[I]; }

  /// Rows whose group satisfies \p Keep, in their order (e.g. a train /
  /// validation split by module).
  template <typename Pred> Dataset filterByGroup(Pred Keep) const {
    Dataset Out(FeatureNames);
    for (size_t I = 0; I < size(); ++I)
      if (Keep(group(I)))
        Out.addRow(row(I), label(I), weight(I), group(I));
    return Out;
  }

  /// Same names and same rows, bit for bit.
  bool operator==(const Dataset &O) const;
  bool operator!=(const Dataset &O) const { return !(*this == O); }

  /// Writes the binary format above, atomically.
  llvm::Error save(llvm::StringRef Path) const;
  /// Reads it back. Errors name the file and what is wrong, e.g.
  /// "d.bin: truncated dataset (expected 1234 bytes, found 1000)".
  static llvm::Expected<Dataset> load(llvm::StringRef Path);
  /// Parses the binary format from memory; \p Name is used in errors.
  static llvm::Expected<Dataset> parse(llvm::ArrayRef<uint8_t> Bytes,
                                       llvm::StringRef Name);
  /// Serializes to memory.
  std::vector<uint8_t> serialize() const;

private:
  std::vector<std::string> FeatureNames;
  std::vector<float> Features;
  std::vector<uint8_t> Labels;
  std::vector<float> Weights;
  std::vector<int64_t> Groups;
};

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_DATASET_H

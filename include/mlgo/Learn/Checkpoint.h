//===- mlgo/Learn/Checkpoint.h - Resumable trainer state --------*- C++ -*-===//
//
// A Checkpoint is a set of named arrays - unsigned 64-bit integers, doubles
// or raw bytes - holding everything a trainer's future depends on: the
// parameters, the optimizer's moments and step count, the random generator's
// state, the iteration, pending ES directions, and whatever the training
// loop adds (e.g. the learning curve so far). Trainers write theirs with
// saveState(Checkpoint &, Prefix) and read it back with loadState(); a run
// resumed from a checkpoint continues bit-identically.
//
// save() is atomic: the bytes go to "<Path>.tmp<pid>" in the same directory,
// which is fsync'ed, closed and renamed over <Path>. After a kill -9 at any
// moment, <Path> is either the previous checkpoint or the new one, never a
// mix; a stale temporary file is harmless and overwritten next time.
//
// File format, version 1, little-endian:
//
//   offset  size   field
//   0       8      magic "MLGOCKPT"
//   8       4      u32 version = 1
//   12      4      u32 E, the number of entries
//   16      ...    E entries, sorted by key (byte-wise), each:
//                    u32 key length K, K key bytes (UTF-8),
//                    u8 kind: 1 = u64 array, 2 = f64 array, 3 = bytes,
//                    u64 count C,
//                    C * 8 bytes (u64 or IEEE binary64) or C bytes
//   end-4   4      u32 CRC-32 (zlib polynomial) of every byte before it
//
// The same state always serializes to the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_CHECKPOINT_H
#define MLGO_LEARN_CHECKPOINT_H

#include "mlgo/Learn/Random.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlgo {
namespace learn {

class Checkpoint {
public:
  enum class Kind : uint8_t { U64 = 1, F64 = 2, Bytes = 3 };

  void setU64s(llvm::StringRef Key, llvm::ArrayRef<uint64_t> V);
  void setF64s(llvm::StringRef Key, llvm::ArrayRef<double> V);
  void setBytes(llvm::StringRef Key, llvm::StringRef V);
  void setU64(llvm::StringRef Key, uint64_t V) { setU64s(Key, {V}); }
  void setF64(llvm::StringRef Key, double V) { setF64s(Key, {V}); }

  bool has(llvm::StringRef Key) const { return Entries.count(Key.str()); }
  /// The array under \p Key; an error names the key if it is missing or of
  /// another kind.
  llvm::Expected<std::vector<uint64_t>> getU64s(llvm::StringRef Key) const;
  llvm::Expected<std::vector<double>> getF64s(llvm::StringRef Key) const;
  llvm::Expected<std::string> getBytes(llvm::StringRef Key) const;
  /// A one-element array.
  llvm::Expected<uint64_t> getU64(llvm::StringRef Key) const;
  llvm::Expected<double> getF64(llvm::StringRef Key) const;

  /// Keys in file order.
  std::vector<std::string> getKeys() const;

  std::vector<uint8_t> serialize() const;
  static llvm::Expected<Checkpoint> parse(llvm::ArrayRef<uint8_t> Bytes,
                                          llvm::StringRef Name);
  llvm::Error save(llvm::StringRef Path) const;
  /// Errors name the file, e.g. "ckpt: checksum mismatch (file corrupt)".
  static llvm::Expected<Checkpoint> load(llvm::StringRef Path);

  bool operator==(const Checkpoint &O) const {
    return serialize() == O.serialize();
  }

private:
  struct Entry {
    Kind TheKind = Kind::U64;
    std::vector<uint64_t> Words; ///< U64 values, or F64 bit patterns.
    std::string Bytes;
  };
  llvm::Expected<const Entry *> get(llvm::StringRef Key, Kind K) const;
  std::map<std::string, Entry> Entries;
};

/// Stores / restores a generator's full state under "<Prefix>rng".
void saveRng(Checkpoint &C, llvm::StringRef Prefix, const Rng &R);
llvm::Error loadRng(const Checkpoint &C, llvm::StringRef Prefix, Rng &R);

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_CHECKPOINT_H

//===- mlgo/Support/Bytes.h - Little-endian byte buffers --------*- C++ -*-===//
//
// The dataset and checkpoint files and the compile workers' frames are
// sequences of little-endian integers, IEEE doubles/floats and
// length-prefixed strings; these two classes write and read them, the reader
// reporting truncation instead of reading past the end.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_BYTES_H
#define MLGO_SUPPORT_BYTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mlgo {

/// Appends little-endian values to Bytes.
class ByteWriter {
public:
  std::vector<uint8_t> Bytes;

  template <typename T> void putInt(T V) {
    uint8_t Buf[sizeof(T)];
    llvm::support::endian::write<T, llvm::endianness::little>(Buf, V);
    Bytes.insert(Bytes.end(), Buf, Buf + sizeof(T));
  }
  void putU8(uint8_t V) { Bytes.push_back(V); }
  void putU32(uint32_t V) { putInt(V); }
  void putU64(uint64_t V) { putInt(V); }
  void putI64(int64_t V) { putInt(V); }
  void putF32(float V) {
    uint32_t B;
    std::memcpy(&B, &V, 4);
    putU32(B);
  }
  void putF64(double V) {
    uint64_t B;
    std::memcpy(&B, &V, 8);
    putU64(B);
  }
  void putRaw(llvm::StringRef S) {
    Bytes.insert(Bytes.end(), S.begin(), S.end());
  }
  /// A u32 length, then the bytes.
  void putString(llvm::StringRef S) {
    putU32(static_cast<uint32_t>(S.size()));
    putRaw(S);
  }
};

/// Reads little-endian values from a buffer it does not own. Every get*
/// returns false, consuming nothing, if the buffer is too short.
class ByteReader {
public:
  explicit ByteReader(llvm::ArrayRef<uint8_t> Bytes) : Bytes(Bytes) {}
  explicit ByteReader(llvm::StringRef Bytes)
      : Bytes(llvm::arrayRefFromStringRef(Bytes)) {}

  /// Whether at least \p N bytes remain.
  bool has(uint64_t N) const { return Bytes.size() - Pos >= N; }
  size_t getPos() const { return Pos; }
  size_t remaining() const { return Bytes.size() - Pos; }

  template <typename T> bool getInt(T &V) {
    if (!has(sizeof(T)))
      return false;
    V = llvm::support::endian::read<T, llvm::endianness::little>(Bytes.data() +
                                                                 Pos);
    Pos += sizeof(T);
    return true;
  }
  bool getU8(uint8_t &V) { return getInt(V); }
  bool getU32(uint32_t &V) { return getInt(V); }
  bool getU64(uint64_t &V) { return getInt(V); }
  bool getI64(int64_t &V) { return getInt(V); }
  bool getF32(float &V) {
    uint32_t B;
    if (!getU32(B))
      return false;
    std::memcpy(&V, &B, 4);
    return true;
  }
  bool getF64(double &V) {
    uint64_t B;
    if (!getU64(B))
      return false;
    std::memcpy(&V, &B, 8);
    return true;
  }
  bool getRaw(uint64_t N, std::string &S) {
    if (!has(N))
      return false;
    S.assign(reinterpret_cast<const char *>(Bytes.data() + Pos), N);
    Pos += N;
    return true;
  }
  bool getString(std::string &S) {
    uint32_t N;
    size_t Save = Pos;
    if (!getU32(N) || !getRaw(N, S)) {
      Pos = Save;
      return false;
    }
    return true;
  }

private:
  llvm::ArrayRef<uint8_t> Bytes;
  size_t Pos = 0;
};

} // namespace mlgo

#endif // MLGO_SUPPORT_BYTES_H

//===- mlgo/Support/Percent.h - Size changes in percent ---------*- C++ -*-===//
//
// Every size table, chart and training report states a policy's size as a
// percent change from a baseline (-Oz): one formula for all of them.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_PERCENT_H
#define MLGO_SUPPORT_PERCENT_H

#include <cstdint>

namespace mlgo {

/// \p New as a percent change from \p Base; 0 when \p Base is 0 (callers
/// that must tell "no baseline" apart check Base first).
inline double percentChange(uint64_t Base, uint64_t New) {
  return Base ? 100.0 * (double(New) - double(Base)) / double(Base) : 0;
}

} // namespace mlgo

#endif // MLGO_SUPPORT_PERCENT_H

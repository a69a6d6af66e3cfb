//===- mlgo/Support/LtoMode.h - Whether a build links with LTO -*- C++ -*-===//
//
// The one name of "this build links with -flto=thin, -flto or neither",
// parsed from `--lto thin|full` once, at the command line: `mlgo eval`
// builds with it (mlgo/Eval/PackageEval.h), `mlgo tune --lto` measures the
// final artifact of such a link (mlgo/Tune/SizeObjective.h).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_LTOMODE_H
#define MLGO_SUPPORT_LTOMODE_H

namespace mlgo {

/// Whether the builds link with LTO.
enum class LtoMode { None, Thin, Full };

/// The flag that turns \p M on, for clang's driver and cc1 alike
/// ("-flto=thin", "-flto"; "" for None).
inline const char *getLtoFlag(LtoMode M) {
  return M == LtoMode::Thin ? "-flto=thin" : M == LtoMode::Full ? "-flto" : "";
}

} // namespace mlgo

#endif // MLGO_SUPPORT_LTOMODE_H

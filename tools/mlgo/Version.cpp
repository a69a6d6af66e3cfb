//===- tools/mlgo/Version.cpp - What `mlgo --version` prints --------------===//
//
// `mlgo --version` answers the questions a bug report needs answered: which
// mlgo (its version and the git commit it was built from), which models it
// embeds (each by the MD5 of its file; for inline-oz, the id mlgo tune's
// decisions files record), and which LLVM: the libLLVM loaded now
// (LLVMGetVersion is compiled into libLLVM, so it reports the library, not
// our headers) and the one this build compiled against. The format:
//
//   mlgo version 0.3.0
//     commit: 8bc2196e1f0a-dirty
//     LLVM: 19.1.7 at run time (/usr/lib/llvm-19/lib/libLLVM.so.19.1), ...
//       ... built against 19.1.7                         (one line)
//     model inline-oz: md5 <32 hex digits>
//     model regalloc-evict: md5 <32 hex digits>
//     model tune-ranker: md5 <32 hex digits>
//
// The commit is `git describe` of the source tree ("-dirty" with
// uncommitted changes), "unknown" when not built from git. It comes from
// <build>/tools/mlgo/GitCommit.inc, which every build rewrites when (and only
// when) the commit or the tree's state changed (cmake/MLGOGitCommit.cmake), so
// only this file recompiles.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Config.h"

#include "llvm-c/Core.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

namespace mlgo::tool {

namespace {
#include "GitCommit.inc"
} // namespace

/// The file of the loaded library that defines LLVMGetVersion, or "" when
/// the dynamic loader cannot say.
static std::string getLoadedLLVMPath() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&LLVMGetVersion), &Info) ||
      !Info.dli_fname)
    return "";
  return Info.dli_fname;
}

void printVersion(llvm::raw_ostream &OS) {
  unsigned Major = 0, Minor = 0, Patch = 0;
  LLVMGetVersion(&Major, &Minor, &Patch);
  OS << "mlgo version " << config::Version << "\n"
     << "  commit: " << GitCommit << "\n"
     << "  LLVM: " << Major << "." << Minor << "." << Patch << " at run time";
  std::string Lib = getLoadedLLVMPath();
  if (!Lib.empty())
    OS << " (" << Lib << ")";
  OS << ", built against " << config::LLVMBuildVersion << "\n";
  for (const config::EmbeddedModel &M : config::EmbeddedModels)
    OS << "  model " << M.Name << ": md5 " << M.MD5 << "\n";
}

} // namespace mlgo::tool

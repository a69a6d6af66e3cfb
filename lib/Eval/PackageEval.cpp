//===- lib/Eval/PackageEval.cpp - Build a package twice, test it ----------===//
//
// Runs the package steps of scripts/eval-package.sh (the recipes of
// scripts/packages/) with timeouts and logs, and measures what they built
// (see mlgo/Eval/PackageEval.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/PackageEval.h"

#include "mlgo/Eval/ClangModuleCompiler.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <map>

using namespace llvm;

namespace mlgo {

/// The last \p N lines of the file at \p Path ("" if unreadable).
static std::string readTail(StringRef Path, size_t N) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  StringRef Text = (*Buf)->getBuffer().rtrim('\n');
  size_t Pos = Text.size();
  for (size_t I = 0; I < N && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  return (Pos == StringRef::npos ? Text : Text.drop_front(Pos + 1)).str();
}

/// Runs \p Argv in its own process group (killed whole on timeout), with
/// stdout and stderr to \p LogPath (stdout to \p StdoutPath instead when
/// given).
static ProcessResult runLogged(ArrayRef<std::string> Argv, StringRef LogPath,
                               unsigned TimeoutSeconds,
                               StringRef StdoutPath = "") {
  RunOptions O;
  O.Stdin = "/dev/null";
  O.Stdout = (StdoutPath.empty() ? LogPath : StdoutPath).str();
  O.Stderr = LogPath.str();
  O.TimeoutSeconds = TimeoutSeconds;
  O.OwnProcessGroup = true;
  return runProcess(Argv, O);
}

Expected<std::vector<std::string>> findLinkedArtifacts(StringRef BuildDir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(BuildDir, EC,
                                                /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    // CMake's compiler probes (CMakeFiles/<version>/CompilerIdC/a.out, ...)
    // are not the package's artifacts.
    if (It->type() == sys::fs::file_type::directory_file &&
        sys::path::filename(It->path()) == "CMakeFiles") {
      It.no_push();
      continue;
    }
    if (It->type() != sys::fs::file_type::regular_file)
      continue;
    file_magic Magic;
    if (identify_magic(It->path(), Magic))
      continue;
    if (Magic != file_magic::elf_executable &&
        Magic != file_magic::elf_shared_object && Magic != file_magic::archive)
      continue;
    StringRef Rel = StringRef(It->path()).drop_front(BuildDir.size());
    Out.push_back(Rel.ltrim('/').str());
  }
  if (EC)
    return makeError(BuildDir + ": " + EC.message());
  llvm::sort(Out);
  return Out;
}

Expected<PackageReport> evaluatePackage(const PackageEvalOptions &Opts) {
  auto Log = [&](const Twine &Message) {
    if (Opts.Log)
      Opts.Log(Message.str());
  };
  const std::string &Pkg = Opts.Package;
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());

  // The source.
  SmallString<128> SrcFile(Opts.WorkDir), FetchLog(Opts.WorkDir);
  sys::path::append(SrcFile, "source-dir.txt");
  sys::path::append(FetchLog, "fetch.log");
  Log("fetching the Debian source of " + Pkg);
  ProcessResult Fetch =
      runLogged({"bash", Opts.RecipeScript, "fetch", Pkg, Opts.SourceCache},
                FetchLog, Opts.BuildTimeoutSeconds, SrcFile);
  if (!Fetch.succeeded())
    return makeError(Pkg + ": fetching the source " + Fetch.describe() + ":\n" +
                     readTail(FetchLog, 10));
  std::string Src = readTail(SrcFile, 1);
  if (Src.empty() || !sys::fs::is_directory(Src))
    return makeError(Pkg + ": the recipe gave no source directory (see " +
                     FetchLog + ")");

  // The test list, before building, so a recipe error shows early.
  std::vector<std::string> TestNames;
  if (Opts.RunTests) {
    SmallString<128> List(Opts.WorkDir);
    sys::path::append(List, "tests.txt");
    ProcessResult R = runLogged({"bash", Opts.RecipeScript, "tests", Pkg},
                                FetchLog, 60, List);
    if (!R.succeeded())
      return makeError(Pkg + ": listing the tests " + R.describe() + ":\n" +
                       readTail(FetchLog, 10));
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(List);
    if (!Buf)
      return Buf.takeError();
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines)
      TestNames.push_back(L.trim().str());
  }

  PackageReport Report;
  Report.Package = Pkg;
  Report.ModelName = Opts.Model.Name;
  struct Config {
    StringRef Name;
    std::string Dir;
    BuildStats *Stats;
    std::map<std::string, uint64_t> Sizes;
  };
  Config Configs[2] = {{"-Oz", "", &Report.Baseline, {}},
                       {Opts.Model.Name, "", &Report.Model, {}}};
  Configs[0].Dir = (Opts.WorkDir + "/oz");
  Configs[1].Dir = (Opts.WorkDir + "/model");

  for (size_t C = 0; C < 2; ++C) {
    Config &Cfg = Configs[C];
    std::vector<std::string> Argv = {
        "bash",  Opts.RecipeScript,        "build", Pkg, Src,
        Cfg.Dir, std::to_string(Opts.Jobs)};
    if (C == 1) {
      Argv.push_back(Opts.PluginPath);
      if (!Opts.Model.Policy.ModelPath.empty())
        Argv.push_back(Opts.Model.Policy.ModelPath);
    }
    std::string BuildLog = Opts.WorkDir + "/build-" +
                           (C ? std::string("model") : std::string("oz")) +
                           ".log";
    Log("building " + Pkg + " with " + Cfg.Name);
    auto Start = std::chrono::steady_clock::now();
    ProcessResult R = runLogged(Argv, BuildLog, Opts.BuildTimeoutSeconds);
    Cfg.Stats->WallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (!R.succeeded())
      return makeError(Pkg + ": the build with " + Cfg.Name + " " +
                       R.describe() + "; last lines of " + BuildLog + ":\n" +
                       readTail(BuildLog, 15));
    std::string RSSLog = Cfg.Dir + "/rss.log";
    Expected<std::unique_ptr<MemoryBuffer>> RSS = readWholeFile(RSSLog);
    if (!RSS)
      return RSS.takeError();
    Cfg.Stats->PeakRSSKiB =
        parsePeakRSS((*RSS)->getBuffer(), &Cfg.Stats->CompilerRuns);
    if (Cfg.Stats->CompilerRuns == 0)
      return makeError(Pkg + ": the build with " + Cfg.Name +
                       " ran no compiler (" + RSSLog + " is empty)");

    std::string Tree = Cfg.Dir + "/src";
    Expected<std::vector<std::string>> Artifacts = findLinkedArtifacts(Tree);
    if (!Artifacts)
      return Artifacts.takeError();
    for (const std::string &A : *Artifacts) {
      Expected<uint64_t> Size = measureTextSize(Tree + "/" + A);
      if (!Size)
        return Size.takeError();
      Cfg.Sizes[A] = *Size;
    }
  }

  for (const auto &[Path, Size] : Configs[0].Sizes) {
    auto It = Configs[1].Sizes.find(Path);
    if (It == Configs[1].Sizes.end()) {
      Report.UnpairedArtifacts.push_back(Path + " (" + Configs[0].Name.str() +
                                         " only)");
      continue;
    }
    Report.Artifacts.push_back({Path, Size, It->second});
  }
  for (const auto &[Path, Size] : Configs[1].Sizes)
    if (!Configs[0].Sizes.count(Path))
      Report.UnpairedArtifacts.push_back(Path + " (" + Configs[1].Name.str() +
                                         " only)");
  if (Report.Artifacts.empty())
    return makeError(Pkg +
                     ": the builds produced no linked binary or library "
                     "(looked in " +
                     Configs[0].Dir + "/src)");

  for (const std::string &Name : TestNames) {
    TestOutcome T;
    T.Name = Name;
    for (size_t C = 0; C < 2; ++C) {
      std::string Dir = Configs[C].Dir + "/tests";
      sys::fs::create_directories(Dir);
      std::string TestLog = Dir + "/" + Name + ".log";
      Log("testing " + Pkg + " built with " + Configs[C].Name + ": " + Name);
      ProcessResult R = runLogged(
          {"bash", Opts.RecipeScript, "test", Pkg, Configs[C].Dir, Name},
          TestLog, Opts.TestTimeoutSeconds);
      (C ? T.ModelPassed : T.BaselinePassed) = R.succeeded();
      if (C == 1 && !R.succeeded())
        T.ModelLog =
            TestLog + " (" + R.describe() + "):\n" + readTail(TestLog, 10);
    }
    Report.Tests.push_back(std::move(T));
  }
  return Report;
}

} // namespace mlgo

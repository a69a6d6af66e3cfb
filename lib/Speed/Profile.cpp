//===- Profile.cpp - Profiles that a speed compile applies ----------------===//
//
// Checks indexed profiles with LLVM's own reader (ProfileData), merges raw
// ones with llvm-profdata-19, and says how a compile applies one
// (mlgo/Speed/Profile.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/Profile.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Process.h"
#include "mlgo/Support/TempDirs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ProfileData/InstrProfReader.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>

using namespace llvm;

namespace mlgo::speed {

Expected<ProfileInfo> readProfileInfo(StringRef Path) {
  auto Fail = [&](const Twine &Why) { return makeError(Path + ": " + Why); };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return Fail(Buffer.getError().message());
  if (!IndexedInstrProfReader::hasFormat(**Buffer))
    return Fail("not an indexed profile (merge raw profiles with "
                "llvm-profdata-19 merge, or mlgo profile)");
  Expected<std::unique_ptr<IndexedInstrProfReader>> Reader =
      IndexedInstrProfReader::create(std::move(*Buffer));
  if (!Reader)
    return Fail(toString(Reader.takeError()));
  IndexedInstrProfReader &R = **Reader;
  if (!R.isIRLevelProfile())
    return Fail("a front-end instrumentation profile "
                "(-fprofile-instr-generate); mlgo applies IR-level profiles "
                "(-fprofile-generate)");
  if (R.hasCSIRLevelProfile())
    return Fail("a context-sensitive profile (-fcs-profile-generate); mlgo "
                "applies plain IR-level profiles (-fprofile-generate)");
  ProfileInfo Info;
  std::vector<std::pair<std::string, uint64_t>> Executed;
  for (const NamedInstrProfRecord &Record : R) {
    ++Info.Functions;
    uint64_t Max = 0;
    for (uint64_t Count : Record.Counts)
      Max = std::max(Max, Count);
    Info.MaxCount = std::max(Info.MaxCount, Max);
    Info.ExecutedFunctions += Max > 0;
    // IR-level names of local functions are "FILE;NAME".
    StringRef Name = Record.Name;
    Info.RecordNames.push_back(Name.str());
    if (Max > 0)
      Executed.emplace_back(
          (Name.contains(';') ? Name.rsplit(';').second : Name).str(), Max);
    if (!Record.Counts.empty())
      Info.TotalEntryCount += Record.Counts.front();
  }
  if (Error E = R.getError())
    return Fail(toString(std::move(E)));
  if (Info.MaxCount == 0)
    return Fail("every count is zero: the workload ran none of the "
                "instrumented code");
  llvm::sort(Info.RecordNames);
  Info.RecordNames.erase(llvm::unique(Info.RecordNames),
                         Info.RecordNames.end());
  // By name, the largest count first: the first of each name is kept.
  llvm::sort(Executed, [](const auto &A, const auto &B) {
    return A.first != B.first ? A.first < B.first : A.second > B.second;
  });
  for (const auto &[Name, Max] : Executed)
    if (Info.ExecutedNames.empty() || Info.ExecutedNames.back() != Name) {
      Info.ExecutedNames.push_back(Name);
      Info.ExecutedMaxCounts.push_back(Max);
    }
  Info.HotCount = ProfileSummaryBuilder::getHotCountThreshold(
      R.getSummary(/*UseCS=*/false).getDetailedSummary());
  return Info;
}

MissingCounts
findMissingCounts(const ProfileInfo &Info,
                  ArrayRef<std::pair<std::string, bool>> Functions) {
  MissingCounts Result;
  std::vector<std::pair<uint64_t, std::string>> Missing;
  for (const auto &[Name, HasCount] : Functions) {
    auto It = llvm::lower_bound(Info.ExecutedNames, Name);
    if (It == Info.ExecutedNames.end() || *It != Name)
      continue;
    ++Result.Ran;
    if (!HasCount)
      Missing.emplace_back(
          Info.ExecutedMaxCounts[It - Info.ExecutedNames.begin()], Name);
  }
  // Hottest first; names break ties, so the order is the same every run.
  llvm::sort(Missing, [](const auto &A, const auto &B) {
    return A.first != B.first ? A.first > B.first : A.second < B.second;
  });
  for (auto &[Max, Name] : Missing) {
    Result.Hot += Info.HotCount && Max >= Info.HotCount;
    Result.Missing.push_back(std::move(Name));
  }
  return Result;
}

std::vector<std::string> speedCompileFlags(StringRef Profile) {
  return {"-fprofile-use=" + Profile.str(), "-Werror=backend-plugin", "-mllvm",
          "-pgo-warn-missing-function"};
}

std::vector<std::string> speedPackageFlags(StringRef Profile) {
  // DWARF 4 where a package asks for debug information: valgrind 3.19
  // (callgrind, which measures these builds) gives up on clang-19's
  // DWARF 5 in bzip2's libbz2.so ("possibly corrupted debuginfo"). The
  // code is the same either way.
  return {"-fprofile-use=" + Profile.str(), "-fdebug-default-version=4",
          "-fbasic-block-address-map", "-mllvm",
          "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"};
}

std::vector<std::string> findProfileMismatches(StringRef Log) {
  static constexpr StringLiteral Marker =
      ": function control flow change detected (hash mismatch) ";
  std::vector<std::string> Found;
  SmallVector<StringRef> Lines;
  Log.split(Lines, '\n');
  for (StringRef L : Lines) {
    size_t At = L.find(Marker);
    if (At == StringRef::npos)
      continue;
    StringRef File = L.take_front(At);
    size_t Kind = File.rfind(": ");
    if (Kind != StringRef::npos)
      File = File.drop_front(Kind + 2);
    StringRef Function = L.drop_front(At + Marker.size()).split(' ').first;
    std::string Entry = (File + ": " + Function).str();
    if (std::find(Found.begin(), Found.end(), Entry) == Found.end())
      Found.push_back(std::move(Entry));
  }
  return Found;
}

Expected<ProfileInfo>
collectProfile(ArrayRef<std::vector<std::string>> Commands,
               const RunOptions &Options, StringRef Out) {
  // Removed on every way out, SIGTERM and SIGINT included, and collected
  // by the next run after a SIGKILL (mlgo/Support/TempDirs.h).
  Expected<TempDir> Scratch = TempDir::create("mlgo-profile");
  if (!Scratch)
    return makeError("cannot create a directory for raw profiles: " +
                     toString(Scratch.takeError()));
  const std::string &Dir = Scratch->path();
  auto Cleanup = [&] { Scratch->remove(); };
  // %m: one file per instrumented binary (merged across its runs by the
  // runtime), %p: per process, so that concurrent runs never share a file.
  SmallString<256> Pattern(Dir);
  sys::path::append(Pattern, "%m-%p.profraw");
  for (const std::vector<std::string> &Command : Commands) {
    // The workload and everything it starts inherit the variable.
    std::vector<std::string> Argv = {"env",
                                     ("LLVM_PROFILE_FILE=" + Pattern).str()};
    Argv.insert(Argv.end(), Command.begin(), Command.end());
    ProcessResult R = runProcess(Argv, Options);
    if (!R.succeeded()) {
      Cleanup();
      return makeError("the workload '" + Command.front() + "' " +
                       R.describe() + "; no profile written");
    }
  }
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  if (Files.empty()) {
    Cleanup();
    return makeError("the workload '" + Commands.front().front() +
                     "' ran no program built with -fprofile-generate; no "
                     "profile written");
  }
  Error E = mergeRawProfiles(Files, Out);
  Cleanup();
  if (E)
    return E;
  Expected<ProfileInfo> Info = readProfileInfo(Out);
  if (!Info)
    sys::fs::remove(Out);
  return Info;
}

Error mergeRawProfiles(ArrayRef<std::string> Raw, StringRef Out) {
  if (Raw.empty())
    return makeError(Out + ": no raw profile to merge (did the workload run "
                           "the instrumented program?)");
  for (const std::string &File : Raw) {
    uint64_t Size = 0;
    if (std::error_code EC = sys::fs::file_size(File, Size))
      return makeError(File + ": " + EC.message());
    if (Size == 0)
      return makeError(File + ": an empty raw profile (the instrumented "
                              "program did not exit normally)");
  }
  SmallString<256> Temp(Out);
  Temp += ".tmp";
  std::vector<std::string> Argv = {"llvm-profdata-19", "merge", "-o",
                                   std::string(Temp)};
  Argv.insert(Argv.end(), Raw.begin(), Raw.end());
  SmallString<256> Log(Out);
  Log += ".merge-log";
  RunOptions Options;
  Options.Stdout = std::string(Log);
  Options.Stderr = std::string(Log);
  Options.TimeoutSeconds = 600;
  ProcessResult R = runProcess(Argv, Options);
  std::string FirstLine;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log))
    FirstLine = (*B)->getBuffer().split('\n').first.str();
  sys::fs::remove(Log);
  if (!R.succeeded()) {
    sys::fs::remove(Temp);
    return makeError(Out + ": llvm-profdata-19 merge " + R.describe() +
                     (FirstLine.empty() ? "" : ": " + FirstLine));
  }
  if (std::error_code EC = sys::fs::rename(Temp, Out))
    return makeError(Out + ": " + EC.message());
  return Error::success();
}

} // namespace mlgo::speed

//===- Files.cpp - Reading whole files with located errors ----------------===//

#include "mlgo/Support/Files.h"

#include "mlgo/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace mlgo {

Expected<std::unique_ptr<MemoryBuffer>> readWholeFile(const Twine &Path) {
  // Binary or text, read as is; nothing mlgo reads needs a NUL after the end.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(),
                             Path + ": " + Buf.getError().message());
  return std::move(*Buf);
}

Expected<json::Value> parseJSON(StringRef Text) {
  // Brackets outside strings, as the parser will see them up to its first
  // error (after which it reads no further).
  size_t Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth <= MaxJSONDepth)
        continue;
      StringRef Before = Text.take_front(I);
      size_t Line = Before.count('\n') + 1;
      size_t LineStart = Before.rfind('\n');
      size_t Column = LineStart == StringRef::npos ? I : I - LineStart - 1;
      return makeError("[" + Twine(Line) + ":" + Twine(Column) +
                       ", byte=" + Twine(I) + "]: nested deeper than " +
                       Twine(MaxJSONDepth) + " levels");
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return json::parse(Text);
}

Expected<json::Value> readJSONFile(const Twine &Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<json::Value> Parsed = parseJSON((*Buf)->getBuffer());
  if (!Parsed)
    return makeError(Path + ": invalid JSON: " + toString(Parsed.takeError()));
  return std::move(*Parsed);
}

Error writeFileAtomically(const Twine &Path, StringRef Bytes) {
  std::string Target = Path.str();
  std::string Tmp = Target + ".tmp";
  auto Fail = [&](std::error_code EC) {
    sys::fs::remove(Tmp);
    return createStringError(EC,
                             "cannot write '" + Target + "': " + EC.message());
  };
  int FD;
  if (std::error_code EC = sys::fs::openFileForWrite(Tmp, FD))
    return createStringError(EC,
                             "cannot write '" + Target + "': " + EC.message());
  std::error_code WriteEC;
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/false);
    OS << Bytes;
    OS.flush();
    if (OS.has_error()) {
      WriteEC = OS.error();
      // Or the stream's destructor stops the process with an unnamed "IO
      // failure on output stream".
      OS.clear_error();
    }
  }
  // Survive a machine crash as well as a killed process: the data must be on
  // disk before the rename makes it visible under Path.
  if (!WriteEC && ::fsync(FD) != 0)
    WriteEC = std::error_code(errno, std::generic_category());
  if (::close(FD) != 0 && !WriteEC)
    WriteEC = std::error_code(errno, std::generic_category());
  if (WriteEC)
    return Fail(WriteEC);
  if (std::error_code EC = sys::fs::rename(Tmp, Target))
    return Fail(EC);
  return Error::success();
}

Error copyFileAtomically(const Twine &From, const Twine &To) {
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(From);
  if (!Bytes)
    return Bytes.takeError();
  return writeFileAtomically(To, (*Bytes)->getBuffer());
}

std::string describeFullDisks(ArrayRef<std::string> Paths) {
  std::vector<std::string> Seen;
  std::string Out;
  for (const std::string &P : Paths) {
    if (P.empty())
      continue;
    std::string Dir =
        sys::fs::is_directory(P) ? P : sys::path::parent_path(P).str();
    if (Dir.empty())
      Dir = ".";
    if (std::find(Seen.begin(), Seen.end(), Dir) != Seen.end())
      continue;
    Seen.push_back(Dir);
    struct statvfs S;
    if (::statvfs(Dir.c_str(), &S) != 0)
      continue;
    if (S.f_bavail != 0 && !(S.f_files != 0 && S.f_favail == 0))
      continue;
    if (!Out.empty())
      Out += "; ";
    Out += Dir + ": " + std::strerror(ENOSPC);
  }
  return Out;
}

std::string describeNoRoom(const std::string &Dir, StringRef Log) {
  std::string Full = describeFullDisks({Dir});
  if (!Full.empty())
    return Full;
  struct rlimit Limit;
  if (::getrlimit(RLIMIT_FSIZE, &Limit) == 0 &&
      Limit.rlim_cur != RLIM_INFINITY) {
    std::string Why = std::string(std::strerror(EFBIG)) +
                      " (the file size limit, ulimit -f, is " +
                      std::to_string(uint64_t(Limit.rlim_cur)) + " bytes)";
    std::error_code EC;
    std::vector<std::string> AtLimit;
    for (sys::fs::recursive_directory_iterator It(Dir, EC), End;
         It != End && !EC; It.increment(EC)) {
      sys::fs::file_status S;
      if (!sys::fs::status(It->path(), S, /*Follow=*/false) &&
          S.type() == sys::fs::file_type::regular_file &&
          S.getSize() >= Limit.rlim_cur)
        AtLimit.push_back(It->path());
    }
    if (!AtLimit.empty()) {
      std::sort(AtLimit.begin(), AtLimit.end());
      return "'" + AtLimit.front() + "': " + Why;
    }
    if (Log.contains("File size limit exceeded") ||
        Log.contains(std::strerror(EFBIG)))
      return "'" + Dir + "': " + Why;
  }
  if (Log.contains(std::strerror(ENOSPC)))
    return Dir + ": " + std::strerror(ENOSPC);
  return "";
}

std::string readTail(const Twine &Path, size_t N) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf || N == 0)
    return "";
  StringRef Text = (*Buf)->getBuffer().rtrim('\n');
  size_t Pos = Text.size();
  for (size_t I = 0; I < N && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  return (Pos == StringRef::npos ? Text : Text.drop_front(Pos + 1)).str();
}

std::string findOutputArgument(ArrayRef<std::string> Argv) {
  for (size_t I = 0; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    if (A == "-o" && I + 1 < Argv.size())
      return Argv[I + 1];
    if (A.starts_with("-o") && A.size() > 2)
      return A.drop_front(2).str();
  }
  return "";
}

} // namespace mlgo

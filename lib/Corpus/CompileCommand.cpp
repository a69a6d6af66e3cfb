//===- lib/Corpus/CompileCommand.cpp - Replaying a corpus module ----------===//
//
// Turns a module's stored cc1 arguments back into a command that compiles
// its bitcode the way the original compile did, and runs such commands.
// Kept free of any clang library: the cc1 option names dropped here are the
// few that name files of the original compile, and they are stable across
// clang releases.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/CompileCommand.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlgo {

std::vector<std::string> splitCommandSection(StringRef Section) {
  std::vector<std::string> Args;
  while (!Section.empty()) {
    auto [Arg, Rest] = Section.split('\0');
    Args.push_back(Arg.str());
    Section = Rest;
  }
  return Args;
}

std::string joinCommandSection(ArrayRef<std::string> Args) {
  std::string Out;
  for (const std::string &A : Args) {
    Out += A;
    Out += '\0';
  }
  return Out;
}

/// cc1 options whose next argument names a file of the original compile.
static bool dropsWithValue(StringRef Arg) {
  return StringSwitch<bool>(Arg)
      .Cases("-o", "-x", "-dumpdir", "-dependency-file", "-MT", "-MQ", true)
      .Cases("-split-dwarf-output", "-coverage-notes-file",
             "-coverage-data-file", "-opt-record-file", true)
      .Default(false);
}

/// cc1 options, standalone or "-opt=value", that are dropped.
static bool dropsAlone(StringRef Arg) {
  return Arg == "-cc1" || Arg.starts_with("-fembed-bitcode") ||
         Arg == "-sys-header-deps" || Arg == "-module-file-deps" ||
         Arg.starts_with("-stats-file=") || Arg.starts_with("-ftime-trace=") ||
         Arg == "-ftime-trace";
}

std::vector<std::string> filterCC1Args(ArrayRef<std::string> CC1Args) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < CC1Args.size(); ++I) {
    StringRef Arg = CC1Args[I];
    if (dropsWithValue(Arg)) {
      ++I;
      continue;
    }
    if (dropsAlone(Arg))
      continue;
    // Not an option, and not the value of the option before it (consumed
    // below): an input. Clang does not store its input, but a hand-written
    // .cmd may name one.
    if (!Arg.starts_with("-"))
      continue;
    Out.push_back(Arg.str());
    // Keep an option's separate value with it, so "-main-file-name a.c"
    // is not mistaken for an input.
    if (I + 1 < CC1Args.size() && !StringRef(CC1Args[I + 1]).starts_with("-"))
      Out.push_back(CC1Args[++I]);
  }
  return Out;
}

std::vector<std::string> buildCompileCommand(const CompileRequest &Request) {
  std::vector<std::string> Argv{Request.Clang, "-cc1"};
  llvm::append_range(Argv, filterCC1Args(Request.CC1Args));
  llvm::append_range(Argv, Request.ExtraArgs);
  Argv.insert(Argv.end(),
              {"-x", "ir", Request.BitcodePath, "-o", Request.OutputPath});
  return Argv;
}

Expected<std::vector<std::string>>
readModuleCC1Args(StringRef Dir, const CorpusDescription &Description,
                  StringRef Module) {
  if (Description.GlobalCommandOverride)
    return *Description.GlobalCommandOverride;
  std::string Cmd = getModuleFile(Dir, Module, ".cmd");
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Cmd);
  if (!Buf)
    return Buf.takeError();
  return splitCommandSection((*Buf)->getBuffer());
}

Expected<std::vector<std::string>>
getModuleCompileCommand(StringRef Dir, const CorpusDescription &Description,
                        StringRef Module, StringRef OutputPath,
                        ArrayRef<std::string> ExtraArgs, StringRef Clang) {
  if (!llvm::is_contained(Description.Modules, Module))
    return makeError("module '" + Module + "' is not in the corpus at '" + Dir +
                     "'");
  std::string Bc = getModuleFile(Dir, Module, ".bc");
  if (!sys::fs::exists(Bc))
    return makeError(Bc + ": no such file");
  Expected<std::vector<std::string>> Args =
      readModuleCC1Args(Dir, Description, Module);
  if (!Args)
    return Args.takeError();
  CompileRequest R;
  R.Clang = Clang.str();
  R.CC1Args = std::move(*Args);
  R.BitcodePath = Bc;
  R.OutputPath = OutputPath.str();
  R.ExtraArgs = ExtraArgs.vec();
  return buildCompileCommand(R);
}

std::string shellQuote(ArrayRef<std::string> Argv) {
  std::string Out;
  for (const std::string &A : Argv) {
    if (!Out.empty())
      Out += ' ';
    bool Plain = !A.empty() && llvm::all_of(A, [](char C) {
      return isAlnum(C) || StringRef("-_./=:,+@%").contains(C);
    });
    if (Plain) {
      Out += A;
      continue;
    }
    Out += '\'';
    for (char C : A) {
      if (C == '\'')
        Out += "'\\''";
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

Error runCommand(ArrayRef<std::string> Argv, unsigned TimeoutSeconds) {
  assert(!Argv.empty() && "runCommand needs a program");
  SmallString<128> ErrFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-compile", "err", ErrFile))
    return makeError("cannot create a temporary file: " + EC.message());
  RunOptions Options;
  Options.Stderr = std::string(ErrFile);
  Options.TimeoutSeconds = TimeoutSeconds;
  ProcessResult R = runProcess(Argv, Options);
  std::string Stderr;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
          MemoryBuffer::getFile(ErrFile))
    Stderr = (*Buf)->getBuffer().take_front(2000).str();
  sys::fs::remove(ErrFile);
  if (R.succeeded())
    return Error::success();
  // "cannot find 'x' in PATH" and the like already name the program.
  if (!R.hasStarted())
    return makeError(R.getProblem());
  // A full disk may have left the compiler nothing to say it with.
  std::string Full =
      describeFullDisks({findOutputArgument(Argv), ErrFile.str().str()});
  return makeError(Argv[0] + " " + R.describe() +
                   (Full.empty() ? std::string() : " (" + Full + ")") +
                   (Stderr.empty() ? std::string() : ":\n" + Stderr));
}

} // namespace mlgo

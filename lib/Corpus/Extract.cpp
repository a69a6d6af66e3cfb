//===- lib/Corpus/Extract.cpp - Corpus extraction from objects ------------===//
//
// Finds the objects of a build (compile_commands.json or a directory), reads
// the module and command line clang embedded in each (.llvmbc/.llvmcmd, via
// llvm::object), and writes them as a corpus. Each object is independent, so
// objects are processed on a thread pool; the results are put back in input
// order so the corpus does not depend on scheduling. Duplicates (see
// Extract.h) are resolved in that order too: each worker hashes the bitcode
// it read, and a serial pass keeps the first module of each source file and
// of each bitcode hash, removing the files of the others.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/Extract.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/JSONInteger.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <tuple>

using namespace llvm;

namespace mlgo {

StringRef getSkipReasonName(SkipReason R) {
  switch (R) {
  case SkipReason::NotACompile:
    return "not a compile-only command";
  case SkipReason::MissingObject:
    return "object file missing";
  case SkipReason::UnreadableObject:
    return "unreadable object";
  case SkipReason::LinkedBinary:
    return "linked binary, not an object";
  case SkipReason::NoBitcode:
    return "no embedded bitcode";
  case SkipReason::NoCommand:
    return "no embedded command line";
  case SkipReason::Duplicate:
    return "duplicate module name";
  case SkipReason::WriteFailed:
    return "write failed";
  }
  llvm_unreachable("unknown skip reason");
}

StringRef getDropReasonName(DropReason R) {
  switch (R) {
  case DropReason::IdenticalBitcode:
    return "identical bitcode";
  case DropReason::SameSource:
    return "same source file";
  }
  llvm_unreachable("unknown drop reason");
}

std::string describeDroppedModule(const DroppedModule &D) {
  if (D.Reason == DropReason::IdenticalBitcode)
    return D.Module + ": identical bitcode to " + D.KeptModule;
  return D.Module + ": same source file as " + D.KeptModule + " (" +
         D.SourcePath + ")";
}

static std::string normalize(StringRef Path) {
  SmallString<256> P(Path);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// A CMake object's name by its target: "[DIR/]CMakeFiles/T.dir/REST" (what
/// CMake names every object, relative to the target's build directory)
/// becomes "T/REST", so that the target - a library, a tool, the tests - is
/// the module's package (mlgo/Corpus/Package.h). Other names are kept.
static std::string nameByCMakeTarget(std::string Name) {
  SmallVector<StringRef, 8> Parts;
  StringRef(Name).split(Parts, '/');
  for (size_t I = 0; I + 2 < Parts.size(); ++I) {
    if (Parts[I] != "CMakeFiles" || !Parts[I + 1].ends_with(".dir") ||
        Parts[I + 1] == ".dir")
      continue;
    std::string Out = Parts[I + 1].drop_back(4).str();
    for (size_t J = I + 2; J < Parts.size(); ++J)
      Out += "/" + Parts[J].str();
    return Out;
  }
  return Name;
}

/// The module name of an object: its path relative to \p BaseDir if it lies
/// below it; else relative to the build directory, or, outside it, its
/// absolute path without the leading '/', with CMake's objects named by
/// their target (nameByCMakeTarget).
static std::string moduleNameFor(StringRef BaseDir, StringRef Directory,
                                 StringRef Output) {
  if (!BaseDir.empty()) {
    SmallString<256> Obj(Output);
    if (!sys::path::is_absolute(Obj)) {
      Obj = Directory;
      sys::path::append(Obj, Output);
    }
    std::string Abs = normalize(Obj), Base = normalize(BaseDir);
    if (StringRef(Abs).starts_with(Base + "/"))
      return Abs.substr(Base.size() + 1);
  }
  if (!sys::path::is_absolute(Output))
    return nameByCMakeTarget(normalize(Output));
  std::string Abs = normalize(Output);
  std::string Dir = normalize(Directory);
  if (!Dir.empty() && StringRef(Abs).starts_with(Dir + "/"))
    return nameByCMakeTarget(Abs.substr(Dir.size() + 1));
  return StringRef(Abs).ltrim('/').str();
}

std::string getCommonRoot(ArrayRef<std::string> Dirs) {
  if (Dirs.empty())
    return "";
  SmallVector<StringRef, 16> Common;
  StringRef(Dirs.front()).split(Common, '/');
  for (StringRef D : Dirs.drop_front()) {
    SmallVector<StringRef, 16> Parts;
    D.split(Parts, '/');
    size_t N = 0;
    while (N < Common.size() && N < Parts.size() && Common[N] == Parts[N])
      ++N;
    Common.resize(N);
  }
  std::string Root = join(Common, "/");
  return Root.empty() ? "/" : Root;
}

Expected<std::vector<ObjectInput>>
readCompileCommands(StringRef Path, std::vector<SkippedObject> &Skipped,
                    StringRef BaseDirArg) {
  // A relative base directory is relative to where mlgo runs, as any other
  // path argument; one that is not there names nothing.
  SmallString<256> BaseDir(BaseDirArg);
  if (!BaseDir.empty()) {
    if (std::error_code EC = sys::fs::make_absolute(BaseDir))
      return makeError("--base-dir '" + BaseDirArg + "': " + EC.message());
    if (!sys::fs::is_directory(BaseDir))
      return makeError("--base-dir '" + BaseDirArg + "': no such directory");
  }
  size_t BelowBase = 0;
  Expected<json::Value> Parsed = readJSONFile(Path);
  if (!Parsed)
    return Parsed.takeError();
  const json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return makeError(Path + ": not a compilation database (expected an array)");

  std::vector<ObjectInput> Objects;
  // Each object's entry directory and output, to name it again from the
  // top of the build if its name collides.
  std::vector<std::pair<std::string, std::string>> Origins;
  StringSet<> SeenObjects;
  for (size_t I = 0; I < Entries->size(); ++I) {
    const json::Object *E = (*Entries)[I].getAsObject();
    if (!E)
      return makeError(Path + ": entry " + Twine(I) + " is not an object");
    std::optional<StringRef> Directory = E->getString("directory");
    std::optional<StringRef> File = E->getString("file");
    if (!Directory || !File)
      return makeError(Path + ": entry " + Twine(I) +
                       " lacks 'directory' or 'file'");
    BumpPtrAllocator Alloc;
    StringSaver Saver(Alloc);
    SmallVector<const char *, 64> Tokens;
    std::vector<std::string> Args;
    if (const json::Array *A = E->getArray("arguments")) {
      for (const json::Value &V : *A)
        if (std::optional<StringRef> S = V.getAsString())
          Args.push_back(S->str());
    } else if (std::optional<StringRef> C = E->getString("command")) {
      cl::TokenizeGNUCommandLine(*C, Saver, Tokens);
      for (const char *T : Tokens)
        Args.emplace_back(T);
    } else {
      return makeError(Path + ": entry " + Twine(I) +
                       " has neither 'arguments' nor 'command'");
    }
    if (!llvm::is_contained(Args, "-c")) {
      Skipped.push_back({File->str(), SkipReason::NotACompile, ""});
      continue;
    }
    std::string Output;
    if (std::optional<StringRef> O = E->getString("output")) {
      Output = O->str();
    } else {
      for (size_t J = 1; J < Args.size(); ++J) {
        StringRef A = Args[J];
        if (A == "-o" && J + 1 < Args.size())
          Output = Args[J + 1];
        else if (A.starts_with("-o") && A.size() > 2)
          Output = A.drop_front(2).str();
      }
      if (Output.empty())
        Output = (sys::path::stem(*File) + ".o").str();
    }
    SmallString<256> ObjectPath(Output);
    if (!sys::path::is_absolute(ObjectPath)) {
      ObjectPath = *Directory;
      sys::path::append(ObjectPath, Output);
    }
    std::string Obj = normalize(ObjectPath);
    // Build tools may record one compile twice; it is one module.
    if (!SeenObjects.insert(Obj).second)
      continue;
    std::string Module = moduleNameFor(BaseDir, *Directory, Output);
    BelowBase += !BaseDir.empty() &&
                 StringRef(Obj).starts_with(normalize(BaseDir) + "/");
    SmallString<256> Source(*File);
    if (!sys::path::is_absolute(Source)) {
      Source = *Directory;
      sys::path::append(Source, *File);
    }
    Objects.push_back({Obj, Module, normalize(Source)});
    Origins.emplace_back(normalize(*Directory), Output);
  }
  if (!BaseDir.empty() && !Objects.empty() && BelowBase == 0)
    return makeError("--base-dir '" + BaseDirArg + "': none of the " +
                     Twine(Objects.size()) + " objects of " + Path +
                     " lies below " + BaseDir);
  // A recursive make compiles each directory's sources there: a program's
  // main.o and its companion tool's main.o get one name relative to their
  // directories. Such objects are named by their path from the top of the
  // build instead (--base-dir, or the directory every entry lies below);
  // names that do not collide stay as they are, so that a corpus's names,
  // and its fingerprint, do not change when a build gains a directory.
  StringMap<unsigned> NameCount;
  for (const ObjectInput &O : Objects)
    ++NameCount[O.ModuleName];
  if (llvm::any_of(NameCount, [](const auto &E) { return E.second > 1; })) {
    std::string Top = BaseDir.empty() ? "" : normalize(BaseDir);
    if (Top.empty()) {
      std::vector<std::string> Dirs;
      for (const auto &[Dir, Out] : Origins)
        Dirs.push_back(Dir);
      Top = getCommonRoot(Dirs);
    }
    for (size_t I = 0; I < Objects.size(); ++I)
      if (NameCount[Objects[I].ModuleName] > 1)
        Objects[I].ModuleName =
            moduleNameFor(Top, Origins[I].first, Origins[I].second);
  }
  // A parallel build records its compiles in the order they happened to
  // run: the corpus lists its modules by name, as a directory's are, so
  // that its description and fingerprint do not depend on that order. Of
  // two objects that would be one module, the first by path is kept.
  llvm::sort(Objects, [](const ObjectInput &A, const ObjectInput &B) {
    return std::tie(A.ModuleName, A.ObjectPath) <
           std::tie(B.ModuleName, B.ObjectPath);
  });
  std::vector<ObjectInput> Unique;
  for (ObjectInput &O : Objects) {
    if (!Unique.empty() && Unique.back().ModuleName == O.ModuleName) {
      Skipped.push_back({O.ObjectPath, SkipReason::Duplicate, O.ModuleName});
      continue;
    }
    Unique.push_back(std::move(O));
  }
  return Unique;
}

Expected<std::vector<ObjectInput>> findObjects(StringRef Dir, bool AnyName) {
  if (!sys::fs::is_directory(Dir))
    return makeError(Dir + ": not a directory");
  std::vector<ObjectInput> Objects;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (It->type() != sys::fs::file_type::regular_file)
      continue;
    if (AnyName) {
      file_magic Magic;
      if (identify_magic(It->path(), Magic) ||
          Magic != file_magic::elf_relocatable)
        continue;
    } else if (!StringRef(It->path()).ends_with(".o")) {
      continue;
    }
    StringRef Rel = StringRef(It->path()).drop_front(Dir.size()).ltrim('/');
    Objects.push_back({It->path(), Rel.str()});
  }
  if (EC)
    return makeError(Dir + ": " + EC.message());
  llvm::sort(Objects, [](const ObjectInput &A, const ObjectInput &B) {
    return A.ModuleName < B.ModuleName;
  });
  return Objects;
}

/// Whether the archive in \p Buffer has no symbol table and a member with
/// a .llvmbc section.
static bool isUnindexedBitcodeArchive(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<object::Archive>> A =
      object::Archive::create(Buffer);
  if (!A) {
    consumeError(A.takeError());
    return false;
  }
  if ((*A)->hasSymbolTable() && !(*A)->symbols().empty())
    return false;
  Error Err = Error::success();
  bool Found = false;
  for (const object::Archive::Child &C : (*A)->children(Err)) {
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Member) {
      consumeError(Member.takeError());
      continue;
    }
    Expected<std::unique_ptr<object::ObjectFile>> Obj =
        object::ObjectFile::createObjectFile(*Member);
    if (!Obj) {
      consumeError(Obj.takeError());
      continue;
    }
    for (const object::SectionRef &Sec : (*Obj)->sections()) {
      Expected<StringRef> Name = Sec.getName();
      if (Name && *Name == ".llvmbc") {
        Found = true;
        break;
      }
      if (!Name)
        consumeError(Name.takeError());
    }
    if (Found)
      break;
  }
  consumeError(std::move(Err));
  return Found;
}

std::vector<std::string> findUnindexedBitcodeArchives(StringRef Dir) {
  std::vector<std::string> Found;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (It->type() != sys::fs::file_type::regular_file ||
        !StringRef(It->path()).ends_with(".a"))
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(It->path(), /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (Buffer && isUnindexedBitcodeArchive((*Buffer)->getMemBufferRef()))
      Found.push_back(It->path());
  }
  llvm::sort(Found);
  return Found;
}

Expected<EmbeddedModule> readEmbeddedModule(StringRef ObjectPath,
                                            SkipReason &Reason) {
  if (!sys::fs::exists(ObjectPath)) {
    Reason = SkipReason::MissingObject;
    return makeError(ObjectPath + ": no such file");
  }
  Expected<object::OwningBinary<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(ObjectPath);
  if (!Obj) {
    Reason = SkipReason::UnreadableObject;
    return makeError(ObjectPath + ": " + toString(Obj.takeError()));
  }
  // A linked binary holds the .llvmbc sections of all its objects end to
  // end: not one module. (Some builds run `cc -c`-looking link commands.)
  if (!Obj->getBinary()->isRelocatableObject()) {
    Reason = SkipReason::LinkedBinary;
    return makeError(ObjectPath + ": a linked binary, not an object file");
  }
  EmbeddedModule M;
  bool HaveBitcode = false, HaveCommand = false;
  for (const object::SectionRef &Sec : Obj->getBinary()->sections()) {
    Expected<StringRef> Name = Sec.getName();
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    // ELF/COFF names, and Mach-O's __LLVM,__bitcode / __LLVM,__cmdline.
    bool IsBitcode = *Name == ".llvmbc" || *Name == "__bitcode";
    bool IsCommand = *Name == ".llvmcmd" || *Name == "__cmdline";
    if (!IsBitcode && !IsCommand)
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents) {
      Reason = SkipReason::UnreadableObject;
      return makeError(ObjectPath + ": section " + *Name + ": " +
                       toString(Contents.takeError()));
    }
    if (IsBitcode) {
      M.Bitcode = Contents->str();
      HaveBitcode = true;
    } else {
      M.Command = Contents->str();
      HaveCommand = true;
    }
  }
  M.TextSize = getTextSize(*Obj->getBinary());
  // An empty .llvmbc is what -fembed-bitcode=marker leaves.
  if (!HaveBitcode || M.Bitcode.empty()) {
    Reason = SkipReason::NoBitcode;
    return makeError(ObjectPath + ": no .llvmbc section (was it compiled "
                                  "with -Xclang -fembed-bitcode=all?)");
  }
  if (!HaveCommand) {
    Reason = SkipReason::NoCommand;
    return makeError(ObjectPath + ": .llvmbc but no .llvmcmd section");
  }
  return M;
}

/// writeFileAtomically (mlgo/Support/Files.h) into a directory it creates
/// first if needed.
static Error writeFileCreatingParent(StringRef Path, StringRef Contents) {
  StringRef Parent = sys::path::parent_path(Path);
  if (!Parent.empty())
    if (std::error_code EC = sys::fs::create_directories(Parent))
      return makeError(Parent + ": " + EC.message());
  return writeFileAtomically(Path, Contents);
}

static json::Value droppedToJSON(const DroppedModule &D) {
  return json::Object{{"module", D.Module},
                      {"object", D.ObjectPath},
                      {"reason", getDropReasonName(D.Reason)},
                      {"kept_module", D.KeptModule},
                      {"source", D.SourcePath}};
}

static Error writeReport(StringRef Dir, ArrayRef<ExtractedModule> Modules,
                         ArrayRef<SkippedObject> Skipped,
                         ArrayRef<DroppedModule> Dropped) {
  json::Array Ms, Ss, Ds;
  for (const ExtractedModule &M : Modules)
    Ms.push_back(json::Object{{"module", M.Module},
                              {"object", M.ObjectPath},
                              {"source", M.SourcePath},
                              {"text_size", int64_t(M.TextSize)},
                              {"bitcode_size", int64_t(M.BitcodeSize)}});
  for (const SkippedObject &S : Skipped)
    Ss.push_back(json::Object{{"path", S.Path},
                              {"reason", getSkipReasonName(S.Reason)},
                              {"detail", S.Detail}});
  for (const DroppedModule &D : Dropped)
    Ds.push_back(droppedToJSON(D));
  json::Value Report(json::Object{{"modules", std::move(Ms)},
                                  {"skipped", std::move(Ss)},
                                  {"dropped", std::move(Ds)}});
  SmallString<256> Path(Dir);
  sys::path::append(Path, ExtractionReportFileName);
  return writeFileCreatingParent(Path, formatv("{0:2}\n", Report).str());
}

/// Removes a dropped module's files, and the directories that leaves empty
/// (up to, not including, \p Dir).
static Error removeModuleFiles(StringRef Dir, StringRef Module) {
  for (StringRef Ext : {".bc", ".cmd"}) {
    std::string Path = getModuleFile(Dir, Module, Ext);
    if (std::error_code EC = sys::fs::remove(Path))
      return makeError(Path + ": cannot remove: " + EC.message());
  }
  StringRef Parent = sys::path::parent_path(Module);
  while (!Parent.empty()) {
    SmallString<256> P(Dir);
    sys::path::append(P, Parent);
    // Fails, harmlessly, while the directory still holds other modules.
    if (sys::fs::remove(P, /*IgnoreNonExisting=*/true))
      break;
    Parent = sys::path::parent_path(Parent);
  }
  return Error::success();
}

Expected<ExtractResult>
extractCorpus(ArrayRef<ObjectInput> Objects, const ExtractOptions &Options,
              std::vector<SkippedObject> AlreadySkipped) {
  if (std::error_code EC = sys::fs::create_directories(Options.OutputDir))
    return makeError(Options.OutputDir + ": " + EC.message());

  struct Outcome {
    std::optional<ExtractedModule> Module;
    std::optional<SkippedObject> Skip;
    BLAKE3Result<32> Hash;
  };
  std::vector<Outcome> Outcomes = runJobs<Outcome>(
      Objects.size(), Options.Threads,
      [&](size_t I) {
        const ObjectInput &In = Objects[I];
        Outcome Out;
        SkipReason Reason = SkipReason::UnreadableObject;
        Expected<EmbeddedModule> M = readEmbeddedModule(In.ObjectPath, Reason);
        if (!M) {
          Out.Skip =
              SkippedObject{In.ObjectPath, Reason, toString(M.takeError())};
          return Out;
        }
        Error E = writeFileCreatingParent(
            getModuleFile(Options.OutputDir, In.ModuleName, ".bc"), M->Bitcode);
        if (!E)
          E = writeFileCreatingParent(
              getModuleFile(Options.OutputDir, In.ModuleName, ".cmd"),
              M->Command);
        if (E)
          Out.Skip = SkippedObject{In.ObjectPath, SkipReason::WriteFailed,
                                   toString(std::move(E))};
        else
          Out.Module =
              ExtractedModule{In.ModuleName, In.ObjectPath, M->TextSize,
                              M->Bitcode.size(), In.SourcePath};
        Out.Hash = BLAKE3::hash<32>(
            ArrayRef(reinterpret_cast<const uint8_t *>(M->Bitcode.data()),
                     M->Bitcode.size()));
        return Out;
      },
      Options.Progress);

  ExtractResult Result;
  Result.Skipped = std::move(AlreadySkipped);
  StringMap<std::string> KeptByHash, KeptBySource;
  for (Outcome &O : Outcomes) {
    if (!O.Module) {
      Result.Skipped.push_back(std::move(*O.Skip));
      continue;
    }
    ExtractedModule &M = *O.Module;
    if (Options.Deduplicate) {
      std::optional<DroppedModule> Drop;
      StringRef HashKey(reinterpret_cast<const char *>(O.Hash.data()),
                        O.Hash.size());
      auto [ByHash, NewHash] = KeptByHash.try_emplace(HashKey, M.Module);
      if (!NewHash) {
        Drop =
            DroppedModule{M.Module, M.ObjectPath, DropReason::IdenticalBitcode,
                          ByHash->second, M.SourcePath};
      } else if (!M.SourcePath.empty()) {
        auto [BySource, NewSource] =
            KeptBySource.try_emplace(M.SourcePath, M.Module);
        if (!NewSource) {
          KeptByHash.erase(HashKey);
          Drop = DroppedModule{M.Module, M.ObjectPath, DropReason::SameSource,
                               BySource->second, M.SourcePath};
        }
      }
      if (Drop) {
        if (Error E = removeModuleFiles(Options.OutputDir, M.Module))
          return E;
        Result.Dropped.push_back(std::move(*Drop));
        continue;
      }
    }
    Result.Description.Modules.push_back(M.Module);
    Result.Modules.push_back(std::move(M));
  }
  if (Error E = writeReport(Options.OutputDir, Result.Modules, Result.Skipped,
                            Result.Dropped))
    return E;
  if (Error E = Result.Description.write(Options.OutputDir))
    return E;
  return Result;
}

Expected<std::vector<ExtractedModule>> readExtractionReport(StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, ExtractionReportFileName);
  Expected<json::Value> Parsed = readJSONFile(Path);
  if (!Parsed)
    return Parsed.takeError();
  const json::Object *Obj = Parsed->getAsObject();
  const json::Array *Ms = Obj ? Obj->getArray("modules") : nullptr;
  if (!Ms)
    return makeError(Path + ": no 'modules' array");
  std::vector<ExtractedModule> Out;
  for (const json::Value &V : *Ms) {
    const json::Object *M = V.getAsObject();
    if (!M || !M->getString("module") || !getInt64(*M, "text_size"))
      return makeError(Path + ": malformed module entry");
    ExtractedModule E;
    E.Module = M->getString("module")->str();
    E.ObjectPath = M->getString("object").value_or("").str();
    E.TextSize = *getInt64(*M, "text_size");
    E.BitcodeSize = getInt64(*M, "bitcode_size").value_or(0);
    E.SourcePath = M->getString("source").value_or("").str();
    Out.push_back(std::move(E));
  }
  return Out;
}

} // namespace mlgo

namespace mlgo {

Expected<bool> combineExtractionReports(ArrayRef<std::string> Inputs,
                                        ArrayRef<std::string> Prefixes,
                                        StringRef Output) {
  assert(Inputs.size() == Prefixes.size() && "one prefix per input");
  json::Array Modules, Skipped, Dropped;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    SmallString<256> Path(Inputs[I]);
    sys::path::append(Path, ExtractionReportFileName);
    if (!sys::fs::exists(Path))
      return false;
    Expected<json::Value> Parsed = readJSONFile(Path);
    if (!Parsed)
      return Parsed.takeError();
    json::Object *Obj = Parsed->getAsObject();
    if (!Obj || !Obj->getArray("modules"))
      return makeError(Path + ": no 'modules' array");
    for (json::Value &V : *Obj->getArray("modules")) {
      json::Object *M = V.getAsObject();
      if (!M || !M->getString("module"))
        return makeError(Path + ": malformed module entry");
      (*M)["module"] = Prefixes[I] + "/" + M->getString("module")->str();
      Modules.push_back(std::move(V));
    }
    if (json::Array *S = Obj->getArray("skipped"))
      for (json::Value &V : *S)
        Skipped.push_back(std::move(V));
    if (json::Array *D = Obj->getArray("dropped")) {
      for (json::Value &V : *D) {
        json::Object *M = V.getAsObject();
        if (!M || !M->getString("module") || !M->getString("kept_module"))
          return makeError(Path + ": malformed dropped-module entry");
        (*M)["module"] = Prefixes[I] + "/" + M->getString("module")->str();
        (*M)["kept_module"] =
            Prefixes[I] + "/" + M->getString("kept_module")->str();
        Dropped.push_back(std::move(V));
      }
    }
  }
  json::Value Report(json::Object{{"modules", std::move(Modules)},
                                  {"skipped", std::move(Skipped)},
                                  {"dropped", std::move(Dropped)}});
  SmallString<256> Path(Output);
  sys::path::append(Path, ExtractionReportFileName);
  if (Error E = writeFileCreatingParent(Path, formatv("{0:2}\n", Report).str()))
    return E;
  return true;
}

} // namespace mlgo

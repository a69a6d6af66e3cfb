//===- lib/Corpus/CorpusDescription.cpp - A corpus on disk ----------------===//
//
// Reading, writing and combining corpus_description.json, the index of an
// ml-compiler-opt corpus (format in mlgo/Corpus/CorpusDescription.h). The
// combine rule is ml-compiler-opt's: corpora may be merged only when they
// agree on every setting, because a setting (ThinLTO, a command override)
// applies to every module of the merged corpus.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/CorpusDescription.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlgo {

/// Whether \p Module names a file inside a corpus directory: not empty,
/// relative, no ".." component, no NUL.
static bool isModuleName(StringRef Module) {
  if (Module.empty() || sys::path::is_absolute(Module) || Module.contains('\0'))
    return false;
  for (StringRef Component :
       llvm::make_range(sys::path::begin(Module), sys::path::end(Module)))
    if (Component == "..")
      return false;
  return true;
}

/// Reads the object \p Value of key \p Key ("profiles", "block_counts"):
/// package -> a file inside the corpus.
static Error parsePackageFiles(StringRef Name, StringRef Key,
                               const json::Value &Value,
                               std::map<std::string, std::string> &Into) {
  const json::Object *Files = Value.getAsObject();
  if (!Files)
    return makeError(Name + ": '" + Key + "' is not an object");
  for (const auto &[Package, Path] : *Files) {
    std::optional<StringRef> S = Path.getAsString();
    if (!S)
      return makeError(Name + ": " + Key + "." + StringRef(Package) +
                       ": expected a string");
    if (!isModuleName(*S))
      return makeError(Name + ": " + Key + "." + StringRef(Package) + ": '" +
                       *S + "' is not a relative path inside the corpus");
    Into[Package.str()] = S->str();
  }
  return Error::success();
}

Expected<CorpusDescription> CorpusDescription::parse(StringRef Text,
                                                     StringRef Name) {
  Expected<json::Value> Parsed = parseJSON(Text);
  if (!Parsed)
    return makeError(Name + ": invalid JSON: " + toString(Parsed.takeError()));
  json::Object *Obj = Parsed->getAsObject();
  if (!Obj)
    return makeError(Name + ": expected a JSON object");
  CorpusDescription D;
  for (auto &[Key, Value] : *Obj) {
    if (Key == "modules") {
      const json::Array *Modules = Value.getAsArray();
      if (!Modules)
        return makeError(Name + ": 'modules' is not an array");
      for (size_t I = 0; I < Modules->size(); ++I) {
        std::optional<StringRef> S = (*Modules)[I].getAsString();
        if (!S)
          return makeError(Name + ": modules[" + Twine(I) +
                           "]: expected a string");
        // A module is a file of this corpus: a name that leads out of it
        // would make mlgo read - and `corpus combine` write - elsewhere.
        if (!isModuleName(*S))
          return makeError(Name + ": modules[" + Twine(I) + "]: '" + *S +
                           "' is not a relative path inside the corpus");
        D.Modules.push_back(S->str());
      }
    } else if (Key == "has_thinlto") {
      std::optional<bool> B = Value.getAsBoolean();
      if (!B)
        return makeError(Name + ": 'has_thinlto' is not a boolean");
      D.HasThinLTO = *B;
    } else if (Key == "global_command_override") {
      const json::Array *Args = Value.getAsArray();
      if (!Args)
        return makeError(Name + ": 'global_command_override' is not an array");
      D.GlobalCommandOverride.emplace();
      for (size_t I = 0; I < Args->size(); ++I) {
        std::optional<StringRef> S = (*Args)[I].getAsString();
        if (!S)
          return makeError(Name + ": global_command_override[" + Twine(I) +
                           "]: expected a string");
        D.GlobalCommandOverride->push_back(S->str());
      }
    } else if (Key == "profiles" || Key == "block_counts") {
      if (Error E = parsePackageFiles(
              Name, Key, Value, Key == "profiles" ? D.Profiles : D.BlockCounts))
        return E;
    } else {
      D.Extra[Key] = Value;
    }
  }
  if (!Obj->get("modules"))
    return makeError(Name + ": no 'modules' array");
  for (const auto &Entry : D.BlockCounts)
    if (!D.Profiles.count(Entry.first))
      return makeError(Name + ": block_counts." + Entry.first +
                       ": the package has no profile");
  return D;
}

Expected<CorpusDescription> CorpusDescription::read(StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, CorpusDescriptionFileName);
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parse((*Buf)->getBuffer(), Path);
}

json::Value CorpusDescription::settings() const {
  json::Object O = Extra;
  O["has_thinlto"] = HasThinLTO;
  if (GlobalCommandOverride)
    O["global_command_override"] = json::Array(*GlobalCommandOverride);
  return json::Value(std::move(O));
}

/// The path of \p Package's entry in \p Files (package -> path relative to
/// the corpus) inside the corpus at \p Dir, or none.
static std::optional<std::string>
getPackageFile(const std::map<std::string, std::string> &Files, StringRef Dir,
               StringRef Package) {
  auto It = Files.find(Package.str());
  if (It == Files.end())
    return std::nullopt;
  return getModuleFile(Dir, It->second, "");
}

std::optional<std::string>
CorpusDescription::getBlockCountsPath(StringRef Dir, StringRef Package) const {
  return getPackageFile(BlockCounts, Dir, Package);
}

std::optional<std::string>
CorpusDescription::getProfilePath(StringRef Dir, StringRef Package) const {
  return getPackageFile(Profiles, Dir, Package);
}

json::Value CorpusDescription::toJSON() const {
  json::Value V = settings();
  V.getAsObject()->try_emplace("modules", json::Array(Modules));
  // Only when there are some: a corpus without profiles writes the bytes it
  // always did.
  if (!Profiles.empty()) {
    json::Object P;
    for (const auto &[Package, Path] : Profiles)
      P[Package] = Path;
    V.getAsObject()->try_emplace("profiles", std::move(P));
  }
  if (!BlockCounts.empty()) {
    json::Object C;
    for (const auto &[Package, Path] : BlockCounts)
      C[Package] = Path;
    V.getAsObject()->try_emplace("block_counts", std::move(C));
  }
  return V;
}

Error CorpusDescription::write(StringRef Dir) const {
  SmallString<256> Path(Dir);
  sys::path::append(Path, CorpusDescriptionFileName);
  return writeFileAtomically(Path, formatv("{0:2}\n", toJSON()).str());
}

std::string getModuleFile(StringRef Dir, StringRef Module, StringRef Suffix) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, Module + Suffix);
  return std::string(Path);
}

/// \p Path made absolute and free of "." and "..".
static std::string normalizePath(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

Expected<CorpusDescription> combineCorpora(ArrayRef<std::string> Inputs,
                                           StringRef Output) {
  if (Inputs.empty())
    return makeError("no corpora to combine");
  std::vector<CorpusDescription> Descriptions;
  for (const std::string &In : Inputs) {
    Expected<CorpusDescription> D = CorpusDescription::read(In);
    if (!D)
      return D.takeError();
    if (!D->Profiles.empty())
      return makeError("cannot combine '" + In +
                       "': it carries profiles, whose packages would be "
                       "renamed; combine the corpora first, then set the "
                       "profiles with mlgo corpus profile");
    Descriptions.push_back(std::move(*D));
  }
  // Settings must agree, key by key, so the message can say which differs.
  json::Value FirstSettings = Descriptions[0].settings();
  const json::Object &First = *FirstSettings.getAsObject();
  for (size_t I = 1; I < Inputs.size(); ++I) {
    json::Value Settings = Descriptions[I].settings();
    const json::Object &Other = *Settings.getAsObject();
    StringSet<> Keys;
    for (const auto &KV : First)
      Keys.insert(KV.first.str());
    for (const auto &KV : Other)
      Keys.insert(KV.first.str());
    std::vector<std::string> Sorted;
    for (const auto &K : Keys)
      Sorted.push_back(K.getKey().str());
    llvm::sort(Sorted);
    for (const std::string &Key : Sorted) {
      const json::Value *A = First.get(Key);
      const json::Value *B = Other.get(Key);
      if (A && B && *A == *B)
        continue;
      auto Show = [](const json::Value *V) {
        return V ? formatv("{0}", *V).str() : std::string("absent");
      };
      return makeError("cannot combine '" + Inputs[I] + "' with '" + Inputs[0] +
                       "': they differ in '" + Key + "' (" + Show(B) + " vs " +
                       Show(A) + "); corpora may differ only in their modules");
    }
  }

  std::string OutAbs = normalizePath(Output);
  CorpusDescription Combined = Descriptions[0];
  Combined.Modules.clear();
  StringSet<> Prefixes;
  std::vector<std::pair<std::string, std::string>> Copies; // from, to
  for (size_t I = 0; I < Inputs.size(); ++I) {
    std::string InAbs = normalizePath(Inputs[I]);
    if (InAbs == OutAbs)
      return makeError("cannot combine '" + Inputs[I] +
                       "' into itself; the output must be another directory");
    std::string Prefix;
    bool Inside = StringRef(InAbs).starts_with(OutAbs + "/");
    if (Inside)
      Prefix = InAbs.substr(OutAbs.size() + 1);
    else
      Prefix = sys::path::filename(InAbs).str();
    if (!Prefixes.insert(Prefix).second)
      return makeError("cannot combine: two corpora would both be named '" +
                       Prefix + "' in '" + Output + "'");
    for (const std::string &M : Descriptions[I].Modules) {
      std::string Bc = getModuleFile(Inputs[I], M, ".bc");
      if (!sys::fs::exists(Bc))
        return makeError("cannot combine: module file '" + Bc + "' is missing");
      std::string Cmd = getModuleFile(Inputs[I], M, ".cmd");
      if (!Combined.GlobalCommandOverride && !sys::fs::exists(Cmd))
        return makeError("cannot combine: module file '" + Cmd +
                         "' is missing");
      std::string Name = Prefix + "/" + M;
      Combined.Modules.push_back(Name);
      if (Inside)
        continue;
      for (StringRef Suffix : {".bc", ".cmd", ".thinlto.bc"}) {
        std::string From = getModuleFile(Inputs[I], M, Suffix);
        if (sys::fs::exists(From))
          Copies.emplace_back(From, getModuleFile(Output, Name, Suffix));
      }
    }
  }

  if (std::error_code EC = sys::fs::create_directories(Output))
    return makeError(Output + ": " + EC.message());
  for (const auto &[From, To] : Copies) {
    if (std::error_code EC =
            sys::fs::create_directories(sys::path::parent_path(To)))
      return makeError(To + ": " + EC.message());
    // Read and written whole, so that a combine killed halfway leaves no
    // torn module behind.
    Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(From);
    if (!Bytes)
      return Bytes.takeError();
    if (Error E = writeFileAtomically(To, (*Bytes)->getBuffer()))
      return E;
  }
  if (Error E = Combined.write(Output))
    return E;
  return Combined;
}

} // namespace mlgo

//===- lib/Inline/CompilePolicy.cpp - Who decides a compile's inlining ----===//
//
// The cache key of a policy and the plugin arguments that reproduce it in a
// spawned clang (see mlgo/Inline/CompilePolicy.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/CompilePolicy.h"

#include "mlgo/Config.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace mlgo {

CompilePolicy CompilePolicy::embedded() {
  CompilePolicy P;
  P.Kind = PolicyKind::Embedded;
  P.EmbeddedModelMD5 = config::EmbeddedModelMD5;
  return P;
}

Expected<CompilePolicy> CompilePolicy::loadModel(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  return model((*Buf)->getBuffer().str(), std::string(Abs));
}

std::string CompilePolicy::getKey() const {
  MD5 Hash;
  uint8_t K = static_cast<uint8_t>(Kind);
  Hash.update(ArrayRef<uint8_t>(&K, 1));
  Hash.update(getModelJSON());
  Hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Flips.data()),
                                Flips.size() * sizeof(uint32_t)));
  uint64_t Seed = ExploreSeed.value_or(~0ull);
  Hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&Seed), 8));
  Hash.update(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(&ExploreTemperature), 4));
  // Only the embedded model's policies and those with fixed decisions hash
  // more, so that every other key keeps its bytes.
  if (Kind == PolicyKind::Embedded)
    Hash.update("embedded\n" + EmbeddedModelMD5);
  if (Fixed) {
    ModuleDecisions Sorted = *Fixed;
    Sorted.sort();
    Hash.update("fixed\n" + Sorted.Module + "\n" + Sorted.printSites());
  }
  if (EvictModel) {
    Hash.update("evict\n" + *EvictModel + "\n");
    if (Fixed)
      Hash.update(Fixed->printEvictions());
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

Expected<std::vector<std::string>> CompilePolicy::getPluginOptions() const {
  std::vector<std::string> Options;
  auto AddOption = [&](const Twine &Option) {
    Options.push_back(Option.str());
  };
  switch (Kind) {
  case PolicyKind::Stock:
  case PolicyKind::Embedded:
    break;
  case PolicyKind::Heuristic:
    AddOption("-mlgo-default-policy");
    break;
  case PolicyKind::Model:
    if (ModelPath.empty())
      return makeError("a model held only in memory cannot be passed to a "
                       "compiler in another process; load it from a file");
    AddOption("-mlgo-model=" + ModelPath);
    break;
  }
  if (Fixed && DecisionsPath.empty())
    return makeError("decisions held only in memory cannot be passed to a "
                     "compiler in another process; write them to a file");
  if (!DecisionsPath.empty())
    AddOption("-mlgo-decisions=" + DecisionsPath);
  if (!Flips.empty()) {
    std::string List;
    for (uint32_t F : Flips)
      List += (List.empty() ? "" : ",") + std::to_string(F);
    AddOption("-mlgo-flip=" + List);
  }
  if (ExploreSeed) {
    AddOption("-mlgo-explore-seed=" + Twine(*ExploreSeed));
    // Nine significant digits print any float so that it reads back exactly.
    AddOption("-mlgo-explore-temperature=" +
              formatv("{0}", format("%.9g", ExploreTemperature)).str());
  }
  if (!TrainingLogPath.empty())
    AddOption("-mlgo-training-log=" + TrainingLogPath);
  if (EvictModel) {
    AddOption("-mlgo-evict");
    if (!EvictTrainingLogPath.empty())
      AddOption("-mlgo-evict-training-log=" + EvictTrainingLogPath);
    if (!EvictModel->empty())
      AddOption("-mlgo-evict-model=" + *EvictModel);
  }
  return Options;
}

/// \p Head, then "-mllvm OPTION" for each of \p P's plugin options; none
/// at all for a policy without the plugin.
static Expected<std::vector<std::string>>
withPluginOptions(const CompilePolicy &P, std::vector<std::string> Head) {
  if (!P.usesPlugin())
    return std::vector<std::string>();
  Expected<std::vector<std::string>> Options = P.getPluginOptions();
  if (!Options)
    return Options.takeError();
  for (std::string &O : *Options)
    Head.insert(Head.end(), {"-mllvm", std::move(O)});
  return Head;
}

Expected<std::vector<std::string>>
CompilePolicy::getCC1Args(StringRef PluginPath) const {
  // -load makes the plugin's -mlgo-* options known before cc1 parses
  // -mllvm; -fpass-plugin puts the advisor into the pipeline (the clang
  // driver's -fplugin/-fpass-plugin, one level down).
  return withPluginOptions(
      *this, {"-load", PluginPath.str(), "-fpass-plugin=" + PluginPath.str()});
}

Expected<std::vector<std::string>>
CompilePolicy::getDriverArgs(StringRef PluginPath) const {
  return withPluginOptions(*this, {"-fplugin=" + PluginPath.str(),
                                   "-fpass-plugin=" + PluginPath.str()});
}

Expected<std::vector<std::string>> CompilePolicy::getLinkerArgs() const {
  if (!usesPlugin())
    return std::vector<std::string>();
  Expected<std::vector<std::string>> Options = getPluginOptions();
  if (!Options)
    return Options.takeError();
  std::vector<std::string> Args;
  for (const std::string &O : *Options)
    Args.push_back("-Wl,-mllvm," + O);
  return Args;
}

} // namespace mlgo

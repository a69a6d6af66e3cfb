//===- tools/mlgo/ModelCommands.cpp - mlgo model check/show/diff/... -----===//
//
// The text model (mlgo/Model/Model.h) from the command line: validate a file
// with located errors (and, with --canonical, that it is the very bytes mlgo
// writes), rewrite it in those bytes, summarize it, diff two of them, and
// generate the C++ that the build embeds (the same generator as
// mlgo-codegen).
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Model/Model.h"
#include "mlgo/Model/ModelCodeGen.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::SubCommand CheckCmd("model check",
                        "Validate a text model; errors name the JSON path");
cl::list<std::string> CheckFiles(cl::Positional, cl::OneOrMore,
                                 cl::desc("<model.json>..."), cl::sub(CheckCmd),
                                 cl::cat(tool::getToolCategory()));
cl::opt<bool> CheckCanonical(
    "canonical",
    cl::desc("also require each file to be, byte for byte, what mlgo writes "
             "for its model (as mlgo train and mlgo model format write it)"),
    cl::sub(CheckCmd), cl::cat(tool::getToolCategory()));

cl::SubCommand FormatCmd("model format",
                         "Rewrite a text model in the exact bytes mlgo "
                         "writes for it");
cl::opt<std::string> FormatFile(cl::Positional, cl::Required,
                                cl::desc("<model.json>"), cl::sub(FormatCmd),
                                cl::cat(tool::getToolCategory()));
cl::opt<std::string> FormatOut("o", cl::Required,
                               cl::desc("output file (may be the input)"),
                               cl::sub(FormatCmd),
                               cl::cat(tool::getToolCategory()));

cl::SubCommand ShowCmd("model show", "Summarize a text model");
cl::opt<std::string> ShowFile(cl::Positional, cl::Required,
                              cl::desc("<model.json>"), cl::sub(ShowCmd),
                              cl::cat(tool::getToolCategory()));

cl::SubCommand DiffCmd("model diff",
                       "Show what changed between two text models (exit "
                       "status 1 if they differ)");
cl::opt<std::string> DiffA(cl::Positional, cl::Required, cl::desc("<old>"),
                           cl::sub(DiffCmd), cl::cat(tool::getToolCategory()));
cl::opt<std::string> DiffB(cl::Positional, cl::Required, cl::desc("<new>"),
                           cl::sub(DiffCmd), cl::cat(tool::getToolCategory()));

cl::SubCommand CodegenCmd("model codegen",
                          "Write a model as dependency-free C++ (<id>.h and "
                          "<id>.cpp)");
cl::opt<std::string> CodegenFile(cl::Positional, cl::Required,
                                 cl::desc("<model.json>"), cl::sub(CodegenCmd),
                                 cl::cat(tool::getToolCategory()));
cl::opt<std::string> CodegenDir("o", cl::Required, cl::desc("output directory"),
                                cl::sub(CodegenCmd),
                                cl::cat(tool::getToolCategory()));
cl::opt<std::string> CodegenId("id",
                               cl::desc("namespace and file stem (default: "
                                        "from the model name)"),
                               cl::sub(CodegenCmd),
                               cl::cat(tool::getToolCategory()));

int runCheck() {
  int Status = 0;
  for (const std::string &File : CheckFiles) {
    Expected<Model> M = Model::load(File);
    if (!M) {
      Status = fail(M.takeError());
      continue;
    }
    if (CheckCanonical) {
      Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(File);
      if (!Bytes) {
        Status = fail(Bytes.takeError());
        continue;
      }
      StringRef Have = (*Bytes)->getBuffer();
      std::string Want = M->toJSONString();
      if (Have != Want) {
        size_t At =
            std::mismatch(Have.begin(), Have.end(), Want.begin(), Want.end())
                .first -
            Have.begin();
        Status = fail(makeError(
            File +
            ": a valid model, but not the bytes mlgo writes for it "
            "(they differ from line " +
            Twine(Have.take_front(At).count('\n') + 1) +
            "); 'mlgo model format " + File + " -o " + File + "' rewrites it"));
        continue;
      }
    }
    outs() << File << ": ok: model '" << M->Metadata.Name << "', "
           << M->Inputs.size() << " inputs, " << M->Layers.size() << " layers, "
           << M->getNumParameters() << " parameters"
           << (CheckCanonical ? ", canonical bytes" : "") << "\n";
  }
  return Status;
}

int runFormat() {
  Expected<Model> M = Model::load(FormatFile);
  if (!M)
    return fail(M.takeError());
  if (Error E = M->save(FormatOut))
    return fail(std::move(E));
  return 0;
}

int runShow() {
  Expected<Model> M = Model::load(ShowFile);
  if (!M)
    return fail(M.takeError());
  M->printSummary(outs());
  return 0;
}

int runDiff() {
  Expected<Model> A = Model::load(DiffA);
  if (!A)
    return fail(A.takeError());
  Expected<Model> B = Model::load(DiffB);
  if (!B)
    return fail(B.takeError());
  return diffModels(*A, *B, outs()) ? 1 : 0;
}

int runCodegen() {
  Expected<Model> M = Model::load(CodegenFile);
  if (!M)
    return fail(M.takeError());
  std::string Id = CodegenId.empty()
                       ? getEmbeddedModelIdentifier(M->Metadata.Name)
                       : CodegenId.getValue();
  if (Error E = writeModelCode(*M, CodegenDir, Id))
    return fail(std::move(E));
  return 0;
}

tool::RegisterGroup
    RegGroup("model",
             "Check, format, inspect, compare and compile text models");
tool::RegisterSubcommand RegCheck(CheckCmd, runCheck);
tool::RegisterSubcommand RegFormat(FormatCmd, runFormat);
tool::RegisterSubcommand RegShow(ShowCmd, runShow);
tool::RegisterSubcommand RegDiff(DiffCmd, runDiff);
tool::RegisterSubcommand RegCodegen(CodegenCmd, runCodegen);

} // namespace

//===- tools/mlgo-codegen/mlgo-codegen.cpp - Build-time model compiler ----===//
//
// Turns a text model into C++ at build time (mlgo_embed_model runs it), and
// writes the deterministic synthetic models the tests and benchmarks embed:
//
//   mlgo-codegen MODEL.json -o DIR [--id ID] [--header-include PATH]
//   mlgo-codegen --synthesize=benchmark|mixed|columns [--hidden=64,64]
//   [--seed=N]
//                [--name=NAME] -o FILE.json
//
// The benchmark style reads LLVM 19's 38 inlining features (the X-macros of
// llvm/Analysis/InlineModelFeatureMaps.h; only the macros are used, nothing
// is linked).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/Model.h"
#include "mlgo/Model/ModelCodeGen.h"
#include "mlgo/Model/ModelSynth.h"
#include "mlgo/Support/Error.h"

#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;

static cl::OptionCategory Category("mlgo-codegen options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<model.json>"),
                                  cl::cat(Category));
static cl::opt<std::string> Output("o",
                                   cl::desc("output directory (code) or "
                                            "file (--synthesize)"),
                                   cl::Required, cl::cat(Category));
static cl::opt<std::string> Id("id",
                               cl::desc("C++ namespace and file stem of the "
                                        "generated code (default: from the "
                                        "model name)"),
                               cl::cat(Category));
static cl::opt<std::string>
    HeaderInclude("header-include",
                  cl::desc("how the .cpp includes the header (default "
                           "<id>.h)"),
                  cl::cat(Category));
static cl::opt<std::string>
    Synthesize("synthesize",
               cl::desc("write a synthetic model instead: 'benchmark' (the "
                        "38 LLVM inlining features), 'mixed' (test inputs "
                        "of several types, every preprocessing step) or "
                        "'columns' (a per-column masked_argmax model)"),
               cl::cat(Category));
static cl::list<unsigned> Hidden("hidden", cl::CommaSeparated,
                                 cl::desc("hidden layer sizes (default 64,64)"),
                                 cl::cat(Category));
static cl::opt<uint64_t> Seed("seed", cl::init(1),
                              cl::desc("random seed of --synthesize"),
                              cl::cat(Category));
static cl::opt<std::string> Name("name", cl::init("synthetic"),
                                 cl::desc("model name of --synthesize"),
                                 cl::cat(Category));

static int fail(Error E) {
  WithColor::error(errs(), "mlgo-codegen") << toString(std::move(E)) << "\n";
  return 1;
}

static std::vector<mlgo::TensorSpec> getInlineFeatureSpecs() {
  std::vector<mlgo::TensorSpec> Specs;
#define MLGO_INLINE_FEATURE_SPEC(DType, Shape, Name, Doc)                      \
  Specs.push_back(mlgo::TensorSpec::createSpec<DType>(#Name, Shape));
  INLINE_COST_FEATURE_ITERATOR(MLGO_INLINE_FEATURE_SPEC)
  INLINE_FEATURE_ITERATOR(MLGO_INLINE_FEATURE_SPEC)
#undef MLGO_INLINE_FEATURE_SPEC
  return Specs;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(argc, argv, "mlgo-codegen - text model to C++\n");
  if (!Synthesize.empty()) {
    ModelSynthOptions Opts;
    if (Synthesize == "benchmark") {
      Opts.TheStyle = ModelSynthOptions::Style::Benchmark;
      Opts.Inputs = getInlineFeatureSpecs();
    } else if (Synthesize == "mixed") {
      Opts.TheStyle = ModelSynthOptions::Style::Mixed;
      Opts.Inputs = getMixedTestInputs();
    } else if (Synthesize == "columns") {
      Opts.TheStyle = ModelSynthOptions::Style::Columns;
      Opts.Inputs = getColumnsTestInputs();
    } else {
      return fail(makeError("unknown --synthesize style '" + Synthesize +
                            "' (expected benchmark, mixed or columns)"));
    }
    if (!Hidden.empty())
      Opts.Hidden.assign(Hidden.begin(), Hidden.end());
    Opts.Seed = Seed;
    Opts.Name = Name;
    if (Error E = synthesizeModel(Opts).save(Output))
      return fail(std::move(E));
    return 0;
  }
  if (Input.empty())
    return fail(makeError("no model given"));
  Expected<Model> M = Model::load(Input);
  if (!M)
    return fail(M.takeError());
  std::string Ident =
      Id.empty() ? getEmbeddedModelIdentifier(M->Metadata.Name) : Id;
  if (Error E = writeModelCode(*M, Output, Ident, HeaderInclude))
    return fail(std::move(E));
  return 0;
}

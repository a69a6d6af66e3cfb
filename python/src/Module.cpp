//===- python/src/Module.cpp - The mlgo._core extension module ------------===//
//
// The C++ half of the Python package: thin pybind11 bindings to the mlgo
// libraries, so that Python reuses the protocol host, the log reader, the
// model parser, writer and interpreter, the corpus and the code-size measure
// instead of reimplementing them. Everything here is plain data in and out
// (bytes, str, lists, numpy arrays); the Python modules beside it build the
// researcher-facing API (mlgo/envs.py, mlgo/data.py, mlgo/model.py).
//
// Errors: every llvm::Error becomes a Python exception carrying mlgo's
// message, which names the file or module and the problem (ValueError for
// bad input, RuntimeError for a compiler or host that failed). Waiting for a
// compiler releases the GIL and checks for signals every 100 ms, so Ctrl-C
// interrupts a step.
//
//===----------------------------------------------------------------------===//

#include "Episode.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Inline/InlineFeatures.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Protocol/ServePolicy.h"
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/RegAllocTrain/SpeedReward.h"
#include "mlgo/SizeModel/SizeFeatures.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>

namespace py = pybind11;
using namespace llvm;
using namespace mlgo;

namespace {

/// Raises \p E as a Python exception of type \p T.
template <typename T = py::value_error> [[noreturn]] void raise(Error E) {
  throw T(toString(std::move(E)));
}
template <typename V, typename T = py::value_error> V check(Expected<V> E) {
  if (!E)
    raise<T>(E.takeError());
  return std::move(*E);
}

py::list specsToJSON(ArrayRef<mlgo::TensorSpec> Specs) {
  py::list L;
  for (const mlgo::TensorSpec &S : Specs)
    L.append(S.toJSONString());
  return L;
}

//===----------------------------------------------------------------------===//
// Episodes
//===----------------------------------------------------------------------===//

class PyEpisode {
public:
  /// \p Others: a ServePolicy spec ("first-valid", "model=FILE") that
  /// answers every context but \p Target; empty: the caller answers all.
  /// \p Stderr: where the compiler's stderr goes (empty: inherited).
  PyEpisode(std::vector<std::string> Command, unsigned TimeoutSeconds,
            const std::string &Others, const std::string &Target,
            const std::string &Stderr) {
    std::unique_ptr<ServePolicy> P;
    if (!Others.empty())
      P = check(createPolicy(Others));
    E = std::make_unique<python::Episode>(std::move(Command), TimeoutSeconds,
                                          std::move(P), Target, Stderr);
  }

  /// Waits for the next observation or the end: "observation", "finished"
  /// or "failed".
  std::string wait() {
    while (true) {
      python::Episode::State S;
      {
        py::gil_scoped_release Release;
        S = E->waitFor(std::chrono::milliseconds(100));
      }
      switch (S) {
      case python::Episode::State::Running:
        if (PyErr_CheckSignals() != 0)
          throw py::error_already_set();
        continue;
      case python::Episode::State::Observation:
        return "observation";
      case python::Episode::State::Finished:
        return "finished";
      case python::Episode::State::Failed:
        return "failed";
      }
    }
  }

  py::bytes observation() const {
    const std::vector<char> &B = E->getObservation();
    return py::bytes(B.data(), B.size());
  }
  std::string context() const { return E->getContext(); }
  uint64_t index() const { return E->getIndex(); }
  uint64_t decisions() const { return E->getDecisions(); }
  py::list features() const { return specsToJSON(E->getHeader().Features); }
  std::string advice() const {
    return E->getHeader().Advice ? E->getHeader().Advice->toJSONString() : "";
  }

  void act(py::bytes Advice) {
    if (E->getState() != python::Episode::State::Observation)
      throw py::value_error("no observation is waiting for advice");
    std::string_view V = Advice;
    E->act(V.data(), V.size());
  }

  std::vector<std::pair<std::string, uint64_t>> contextDecisions() const {
    return E->getContextDecisions();
  }
  std::string error() const { return E->getError(); }
  bool compilerExited() const { return E->compilerExited(); }
  std::string stderrTail() const { return E->getStderrTail(); }
  double elapsed() const { return E->getStats().ElapsedSeconds; }
  double hostSeconds() const { return E->getStats().HostSeconds; }

  void close() {
    py::gil_scoped_release Release;
    E->close();
  }

private:
  std::unique_ptr<python::Episode> E;
};

//===----------------------------------------------------------------------===//
// Corpus and code size
//===----------------------------------------------------------------------===//

py::list corpusModules(const std::string &Dir) {
  CorpusDescription D = check(CorpusDescription::read(Dir));
  py::list L;
  for (const std::string &M : D.Modules)
    L.append(M);
  return L;
}

std::map<std::string, std::string> corpusProfiles(const std::string &Dir) {
  CorpusDescription D = check(CorpusDescription::read(Dir));
  std::map<std::string, std::string> P;
  for (const auto &[Package, Rel] : D.Profiles)
    P[Package] = *D.getProfilePath(Dir, Package);
  return P;
}

std::vector<std::string> moduleCommand(const std::string &Dir,
                                       const std::string &Module,
                                       const std::string &Output,
                                       std::vector<std::string> Extra,
                                       const std::string &Clang) {
  CorpusDescription D = check(CorpusDescription::read(Dir));
  return check(getModuleCompileCommand(Dir, D, Module, Output, Extra, Clang));
}

std::vector<std::string> moduleCC1Args(const std::string &Dir,
                                       const std::string &Module) {
  CorpusDescription D = check(CorpusDescription::read(Dir));
  return check(readModuleCC1Args(Dir, D, Module));
}

py::tuple codeSizeOf(const CodeSize &S) {
  py::list Grouped;
  for (const auto &[Name, Bytes] : S.Grouped)
    Grouped.append(py::make_tuple(Name, Bytes));
  return py::make_tuple(S.Total, Grouped);
}

py::tuple codeSize(const std::string &Path) {
  std::unique_ptr<MemoryBuffer> Buf = check(readWholeFile(Path));
  Expected<CodeSize> S = getCodeSize(Buf->getMemBufferRef());
  if (!S)
    throw py::value_error(Path + ": " + toString(S.takeError()));
  return codeSizeOf(*S);
}

/// Runs \p Argv (no stdin or stdout; stderr kept for the message) and fails
/// with its description and the start of its stderr.
void runCompiler(const std::vector<std::string> &Argv, unsigned Timeout) {
  SmallString<128> ErrPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-py", "err", ErrPath))
    throw std::runtime_error("cannot create a temporary file: " + EC.message());
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = "/dev/null";
  RO.Stderr = std::string(ErrPath);
  RO.TimeoutSeconds = Timeout;
  ProcessResult R = [&] {
    py::gil_scoped_release Release;
    return runProcess(Argv, RO);
  }();
  std::string Stderr;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
          MemoryBuffer::getFile(ErrPath))
    Stderr = (*Buf)->getBuffer().take_front(2000).rtrim().str();
  sys::fs::remove(ErrPath);
  if (!R.succeeded())
    throw std::runtime_error(Argv[0] + " " + R.describe() +
                             (Stderr.empty() ? "" : ":\n" + Stderr));
}

//===----------------------------------------------------------------------===//
// Register allocation: scores and speed
//===----------------------------------------------------------------------===//

/// (function, static score, profile score) of every function of a module's
/// MIR.
std::vector<std::tuple<std::string, double, double>>
functionScores(const regalloc::ModuleScore &S) {
  std::vector<std::tuple<std::string, double, double>> Out;
  for (const regalloc::FunctionScore &F : S.Functions)
    Out.emplace_back(F.Name, F.Score, F.ProfileScore);
  return Out;
}

std::vector<std::tuple<std::string, double, double>>
scoreMIRFile(const std::string &Path) {
  return functionScores(check(regalloc::scoreMIRFile(Path)));
}

/// The scores of \p IR compiled by `llc -O2 -stop-after=virtregrewriter
/// <Extra>` (LLVM's advisor without extra arguments).
std::vector<std::tuple<std::string, double, double>>
compileAndScore(const std::string &IR, std::vector<std::string> Extra,
                unsigned Timeout) {
  regalloc::LLCOptions O;
  O.ExtraArgs = std::move(Extra);
  O.TimeoutSeconds = Timeout;
  Expected<regalloc::ModuleScore> S = [&] {
    py::gil_scoped_release Release;
    return regalloc::compileAndScore(IR, O);
  }();
  return functionScores(check(std::move(S)));
}

/// (function, entry count, instructions, cycles) of an object carrying
/// address maps and a profile (docs/speed.md).
std::vector<std::tuple<std::string, uint64_t, double, double>>
executionCost(const std::string &Path) {
  std::unique_ptr<MemoryBuffer> Buf = check(readWholeFile(Path));
  speed::ObjectCost C =
      check(speed::measureExecutionCost(Buf->getMemBufferRef(), nullptr));
  std::vector<std::tuple<std::string, uint64_t, double, double>> Out;
  for (const speed::FunctionCost &F : C.Functions)
    Out.emplace_back(F.Name, F.EntryCount, F.Instructions, F.Cycles);
  return Out;
}

void applyProfile(const std::string &IR, const std::string &Profile,
                  const std::string &Out, unsigned Timeout) {
  Error E = [&] {
    py::gil_scoped_release Release;
    return regalloc::applyProfile(IR, Profile, Out, Timeout);
  }();
  if (E)
    raise(std::move(E));
}

//===----------------------------------------------------------------------===//
// Logs
//===----------------------------------------------------------------------===//

/// The whole log: its header and, per context (in order of first
/// appearance; a repeated name continues its context), the observations'
/// bytes back to back, their numbers, and the outcomes' numbers and bytes.
py::dict readLog(const std::string &Path) {
  std::unique_ptr<LogReader> R = check(LogReader::open(Path));
  const LogHeader &H = R->getHeader();
  struct Context {
    std::string Data, Scores;
    std::vector<uint64_t> Index, ScoreIndex;
  };
  std::vector<std::string> Order;
  std::map<std::string, Context> Contexts;
  Context *Current = nullptr;
  while (true) {
    const LogRecord &Rec = check(R->next());
    if (Rec.TheKind == LogRecord::Kind::End)
      break;
    if (Rec.TheKind == LogRecord::Kind::Context) {
      auto [It, New] = Contexts.try_emplace(Rec.Context);
      if (New)
        Order.push_back(Rec.Context);
      Current = &It->second;
      continue;
    }
    if (Rec.TheKind == LogRecord::Kind::Observation) {
      Current->Data.append(Rec.Data.data(), Rec.Data.size());
      Current->Index.push_back(Rec.Index);
      continue;
    }
    Current->Scores.append(Rec.Data.data(), Rec.Data.size());
    Current->ScoreIndex.push_back(Rec.Index);
  }
  py::dict D;
  D["features"] = specsToJSON(H.Features);
  D["score"] = H.Score ? py::cast(H.Score->toJSONString()) : py::none();
  D["advice"] = H.Advice ? py::cast(H.Advice->toJSONString()) : py::none();
  py::list L;
  for (const std::string &Name : Order) {
    Context &C = Contexts[Name];
    py::dict CD;
    CD["name"] = Name;
    CD["data"] = py::bytes(C.Data);
    CD["index"] = C.Index;
    CD["scores"] = py::bytes(C.Scores);
    CD["score_index"] = C.ScoreIndex;
    L.append(CD);
  }
  D["contexts"] = L;
  return D;
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

/// Parses and validates \p Text and returns the canonical bytes mlgo writes.
std::string modelCanonical(const std::string &Text, const std::string &Name) {
  return check(Model::parse(Text, Name)).toJSONString();
}

/// Logits of a batch: \p Inputs[K] is model input K, a C-contiguous array
/// of Rows x (the input's element count) elements of the input's type.
/// Per-column models give Rows x Columns logits.
py::array_t<float> modelLogits(const std::string &Text, const std::string &Name,
                               py::list Inputs, size_t Rows) {
  Model M = check(Model::parse(Text, Name));
  if (Inputs.size() != M.Inputs.size())
    throw py::value_error(
        Name + ": expected " + std::to_string(M.Inputs.size()) +
        " input arrays, got " + std::to_string(Inputs.size()));
  std::vector<py::buffer_info> Buffers;
  for (size_t K = 0; K < M.Inputs.size(); ++K) {
    py::buffer_info B = Inputs[K].cast<py::buffer>().request();
    size_t Bytes = M.Inputs[K].Spec.getTotalTensorBufferSize() * Rows;
    if (static_cast<size_t>(B.size * B.itemsize) != Bytes)
      throw py::value_error(Name + ": input '" + M.Inputs[K].Spec.name() +
                            "' has " + std::to_string(B.size * B.itemsize) +
                            " bytes, expected " + std::to_string(Bytes));
    Buffers.push_back(std::move(B));
  }
  size_t Columns = M.Decision.isPerColumn() ? M.Decision.Columns : 1;
  py::array_t<float> Out({Rows, Columns});
  float *O = Out.mutable_data();
  ModelEvaluator Eval(M);
  std::vector<const void *> Row(M.Inputs.size());
  for (size_t R = 0; R < Rows; ++R) {
    for (size_t K = 0; K < M.Inputs.size(); ++K)
      Row[K] = static_cast<const char *>(Buffers[K].ptr) +
               R * M.Inputs[K].Spec.getTotalTensorBufferSize();
    for (size_t C = 0; C < Columns; ++C)
      O[R * Columns + C] = Eval.evaluate(Row.data(), C);
  }
  return Out;
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "mlgo's C++ libraries, bound for the mlgo Python package";

  py::class_<PyEpisode>(m, "Episode")
      .def(py::init<std::vector<std::string>, unsigned, const std::string &,
                    const std::string &, const std::string &>(),
           py::arg("command"), py::arg("timeout"), py::arg("others") = "",
           py::arg("target") = "", py::arg("stderr") = "")
      .def("context_decisions", &PyEpisode::contextDecisions)
      .def("wait", &PyEpisode::wait)
      .def("observation", &PyEpisode::observation)
      .def("context", &PyEpisode::context)
      .def("index", &PyEpisode::index)
      .def("decisions", &PyEpisode::decisions)
      .def("features", &PyEpisode::features)
      .def("advice", &PyEpisode::advice)
      .def("act", &PyEpisode::act)
      .def("error", &PyEpisode::error)
      .def("compiler_exited", &PyEpisode::compilerExited)
      .def("stderr_tail", &PyEpisode::stderrTail)
      .def("elapsed", &PyEpisode::elapsed)
      .def("host_seconds", &PyEpisode::hostSeconds)
      .def("close", &PyEpisode::close);

  // The features the compilers send, known before any compile: the
  // environments' observation spaces.
  m.def("inline_feature_specs", [](bool WithDefault) {
    std::vector<mlgo::TensorSpec> Specs =
        getInlineFeatureSpecs(/*WithExtras=*/true);
    if (WithDefault)
      Specs.push_back(getInlineDefaultSpec());
    return specsToJSON(Specs);
  });
  // IR2Native's function features: the caller's and callee's IR
  // statistics of InliningEnv(ir_stats=True), in the plugin's order.
  m.def("size_feature_names", [] {
    std::vector<std::string> Names;
    for (StringRef N : getSizeFeatureNames())
      Names.push_back(N.str());
    return Names;
  });
  m.def("eviction_feature_specs",
        [] { return specsToJSON(getEvictionFeatureSpecs()); });
  m.def("corpus_modules", &corpusModules);
  m.def("corpus_profiles", &corpusProfiles);
  m.def("module_command", &moduleCommand);
  m.def("module_cc1_args", &moduleCC1Args);
  m.def("module_package",
        [](const std::string &M) { return getModulePackage(M).str(); });
  m.def("code_size", &codeSize);
  m.def("run_compiler", &runCompiler);
  m.def("read_log", &readLog);
  m.def("score_mir", &scoreMIRFile);
  m.def("compile_and_score", &compileAndScore);
  m.def("execution_cost", &executionCost);
  m.def("apply_profile", &applyProfile);
  m.def("address_map_flags", [] {
    return std::vector<std::string>(std::begin(speed::AddressMapLLCFlags),
                                    std::end(speed::AddressMapLLCFlags));
  });
  // The same for clang (the driver and -cc1 alike).
  m.def("address_map_clang_flags", [] {
    return std::vector<std::string>(std::begin(speed::AddressMapFlags),
                                    std::end(speed::AddressMapFlags));
  });
  m.def("model_canonical", &modelCanonical);
  m.def("model_logits", &modelLogits);
}

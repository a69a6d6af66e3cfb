//===- tools/mlgo/TeacherCommands.cpp - mlgo teacher build/train ----------===//
//
//   mlgo teacher build --corpus DIR --work-dir W -o SET [--max-compiles N]
//   mlgo teacher build --objective speed --profile P --corpus DIR
//                      --work-dir W -o SET [--model EVICT.json]
//   mlgo teacher train SET -o MODEL [--epochs N] [--seed S] [--init M]
//   mlgo teacher dagger SET --student MODEL --corpus DIR --work-dir W -o OUT
//                       [--rounds N [--epochs E] [--seed S]]
//
// The search as a teacher (mlgo/Teacher/Teacher.h, docs/teacher.md): the
// decisions `mlgo tune` finds for a corpus, per call site, and an inlining
// model trained to imitate them; with --objective speed, the eviction
// decisions of a speed tune and an eviction model warm-started on them
// (mlgo/Teacher/EvictTeacher.h). `train` tells the two kinds of set apart
// by their first line.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Teacher/EvictTeacher.h"
#include "mlgo/Teacher/Teacher.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

cl::SubCommand BuildCmd("teacher build",
                        "Tune a corpus and write, per call site, the "
                        "features, LLVM's, the model's and the tuned answer "
                        "and the bytes the move saved (a teacher set)");
cl::opt<std::string> Corpus("corpus", cl::desc("the corpus to tune"),
                            cl::value_desc("dir"), cl::Required,
                            cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir",
                             cl::desc("the tune's work directory and its "
                                      "decisions (a rerun resumes there)"),
                             cl::value_desc("dir"), cl::Required,
                             cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildOut("o", cl::desc("the teacher set"),
                              cl::value_desc("file"), cl::Required,
                              cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<uint64_t> MaxCompiles("max-compiles",
                              cl::desc("the search's compiles (after two per "
                                       "module for the baseline; default: "
                                       "until the moves run out)"),
                              cl::init(0), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<bool> PerPackage("per-package",
                         cl::desc("tune each top-level directory of the "
                                  "corpus as its own program"),
                         cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> Objective("objective",
                               cl::desc("size (inlining decisions, the "
                                        "default) or speed (eviction "
                                        "decisions of a speed tune)"),
                               cl::init("size"), cl::sub(BuildCmd),
                               cl::cat(Cat));
cl::opt<std::string> Profile("profile",
                             cl::desc("the program's indexed profile "
                                      "(--objective speed)"),
                             cl::value_desc("file"), cl::sub(BuildCmd),
                             cl::cat(Cat));
cl::opt<std::string> TeacherModel("model",
                                  cl::desc("the model the search starts from "
                                           "(default: the embedded one; for "
                                           "speed an eviction model)"),
                                  cl::value_desc("file"), cl::sub(BuildCmd),
                                  cl::cat(Cat));
cl::opt<unsigned> Workers("jobs", cl::desc("compile workers (0: one per core)"),
                          cl::init(0), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("no progress lines"), cl::sub(BuildCmd),
                    cl::cat(Cat));

cl::SubCommand TrainCmd("teacher train",
                        "Train an inlining model to imitate a teacher set");
cl::opt<std::string> SetFile(cl::Positional, cl::Required, cl::desc("<set>"),
                             cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> TrainOut("o", cl::desc("the model"),
                              cl::value_desc("file"), cl::Required,
                              cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned> Epochs("epochs", cl::desc("training epochs"), cl::init(200),
                         cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<uint64_t> Seed("seed",
                       cl::desc("the seed of the initial weights and "
                                "the batches"),
                       cl::init(1), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> Name("name",
                          cl::desc("the model's name (default: "
                                   "teacher-student, evict-teacher-student)"),
                          cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> Init("init",
                          cl::desc("the eviction model an eviction set's "
                                   "student starts from (default: the "
                                   "shipped models/regalloc-evict/"
                                   "model.json)"),
                          cl::value_desc("file"), cl::sub(TrainCmd),
                          cl::cat(Cat));

cl::SubCommand DaggerCmd("teacher dagger",
                         "A DAgger round: tune the corpus from a student, "
                         "roll the student out, and add to a teacher set the "
                         "sites where the search's answer differs from the "
                         "student's");
cl::opt<std::string> DaggerSet(cl::Positional, cl::Required, cl::desc("<set>"),
                               cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<std::string> Student("student",
                             cl::desc("the student (a model trained on the "
                                      "set): the search's start model"),
                             cl::value_desc("file"), cl::Required,
                             cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<std::string> DaggerCorpus("corpus", cl::desc("the set's corpus"),
                                  cl::value_desc("dir"), cl::Required,
                                  cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<std::string> DaggerWorkDir("work-dir",
                                   cl::desc("the tune's work directory and "
                                            "its decisions (a rerun resumes "
                                            "there)"),
                                   cl::value_desc("dir"), cl::Required,
                                   cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<std::string> DaggerOut("o", cl::desc("the new teacher set"),
                               cl::value_desc("file"), cl::Required,
                               cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<uint64_t> DaggerMaxCompiles("max-compiles",
                                    cl::desc("the search's compiles (default: "
                                             "until the moves run out)"),
                                    cl::init(0), cl::sub(DaggerCmd),
                                    cl::cat(Cat));
cl::opt<unsigned> DaggerWorkers("jobs",
                                cl::desc("compile workers (0: one per core)"),
                                cl::init(0), cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<bool> DaggerQuiet("quiet", cl::desc("no progress lines"),
                          cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<unsigned> DaggerRounds("rounds",
                               cl::desc("run up to N rounds in W/round-K, "
                                        "training each round's student on "
                                        "the set before it; stop after a "
                                        "round that adds no site"),
                               cl::init(0), cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<unsigned> DaggerEpochs("epochs",
                               cl::desc("with --rounds: the students' "
                                        "training epochs"),
                               cl::init(200), cl::sub(DaggerCmd), cl::cat(Cat));
cl::opt<uint64_t> DaggerSeed("seed",
                             cl::desc("with --rounds: the students' seed"),
                             cl::init(1), cl::sub(DaggerCmd), cl::cat(Cat));

/// The options both teacher builds take, the same way.
template <typename BuildOptions> BuildOptions getBuildOptions() {
  BuildOptions O;
  O.CorpusDir = Corpus;
  O.WorkDir = WorkDir;
  O.Output = BuildOut;
  O.MaxCompiles = MaxCompiles;
  O.ModelPath = TeacherModel;
  O.Verbose = !Quiet;
  return O;
}

int runEvictBuild() {
  if (Profile.empty())
    return fail("--objective speed needs --profile P.profdata");
  if (PerPackage)
    return fail("--per-package is for --objective size: a speed tune is "
                "of one profiled program");
  auto O = getBuildOptions<EvictTeacherBuildOptions>();
  O.Profile = Profile;
  O.Jobs = Workers ? Workers : 2;
  raw_string_ostream Identity(O.BuildIdentity);
  tool::printVersion(Identity);
  Expected<EvictTeacherSet> S = buildEvictTeacherSet(O);
  if (!S)
    return fail(S.takeError());
  size_t Moved = 0;
  uint64_t Saved = 0;
  for (const EvictTeacherDecision &D : S->Decisions) {
    Moved += D.Moved;
    Saved += D.Saved;
  }
  outs() << formatv("{0}: {1} eviction decisions, {2} moved by the search "
                    "off the model's column ({3} profile-weighted "
                    "instructions saved by their moves); fingerprint {4}\n",
                    BuildOut, S->Decisions.size(), Moved, Saved,
                    S->getFingerprint());
  return 0;
}

int runBuild() {
  if (Objective == "speed")
    return runEvictBuild();
  if (Objective != "size")
    return fail("--objective is size or speed, not '" + Objective + "'");
  if (!Profile.empty())
    return fail("--profile is for --objective speed");
  auto O = getBuildOptions<TeacherBuildOptions>();
  O.PerPackage = PerPackage;
  O.Workers = Workers;
  Expected<TeacherSet> S = buildTeacherSet(O);
  if (!S)
    return fail(S.takeError());
  size_t Moved = 0, Inversions = 0;
  uint64_t Saved = 0;
  for (const TeacherSite &T : S->Sites) {
    Moved += T.Moved;
    Inversions += T.getTarget() != T.Llvm;
    Saved += T.Saved;
  }
  outs() << formatv("{0}: {1} sites, {2} moved by the search ({3} bytes "
                    "saved by their moves), {4} targets inverting LLVM's "
                    "answer; fingerprint {5}\n",
                    BuildOut, S->Sites.size(), Moved, Saved, Inversions,
                    S->getFingerprint());
  return 0;
}

int runEvictTrain() {
  if (Seed.getNumOccurrences())
    return fail("--seed is for an inlining teacher set: the eviction "
                "student's perceptron draws nothing");
  Expected<EvictTeacherSet> S = EvictTeacherSet::load(SetFile);
  if (!S)
    return fail(S.takeError());
  std::string InitPath =
      Init.empty() ? getInstallDirs().Data + "/models/regalloc-evict/model.json"
                   : std::string(Init);
  Expected<Model> M = Model::load(InitPath);
  if (!M)
    return fail(M.takeError());
  EvictStudentOptions O;
  if (!Name.empty())
    O.Name = Name;
  O.Epochs = Epochs;
  Expected<EvictStudentReport> R = trainEvictStudent(*S, *M, InitPath, O);
  if (!R)
    return fail(R.takeError());
  if (Error E = R->Student.save(TrainOut))
    return fail(std::move(E));
  outs() << formatv("{0}: trained on {1} eviction decisions of {2}: takes "
                    "the tuned column at {3} (the init at {4}), at {5} of the "
                    "{6} the search moved off the model's ({7} of the {8} "
                    "instructions their moves saved); kept epoch {9}\n",
                    TrainOut, R->Decisions, SetFile, R->Agree, R->InitAgree,
                    R->MovedRight, R->Moved, R->SavedRight, R->Saved, R->Epoch);
  return 0;
}

/// Whether the set at SetFile is an eviction set: its first line that is
/// not a comment (a file that cannot be read is the inlining reader's
/// error).
bool isEvictSet() {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(SetFile);
  if (!B) {
    consumeError(B.takeError());
    return false;
  }
  for (StringRef Line : split((*B)->getBuffer(), '\n'))
    if (!Line.starts_with("#"))
      return Line.starts_with("mlgo-evict-teacher ");
  return false;
}

int runTrain() {
  if (isEvictSet())
    return runEvictTrain();
  if (!Init.empty())
    return fail("--init is for an eviction teacher set: an inlining "
                "student is trained from scratch");
  Expected<TeacherSet> S = TeacherSet::load(SetFile);
  if (!S)
    return fail(S.takeError());
  StudentOptions O;
  if (!Name.empty())
    O.Name = Name;
  O.Epochs = Epochs;
  O.Seed = Seed;
  Expected<StudentReport> R = trainStudent(*S, O);
  if (!R)
    return fail(R.takeError());
  if (Error E = R->Student.save(TrainOut))
    return fail(std::move(E));
  outs() << formatv("{0}: trained on {1} sites of {2}: agrees with the "
                    "target at {3}, inverts LLVM's answer at {4} of the {5} "
                    "sites whose target does\n",
                    TrainOut, R->Sites, SetFile, R->Agree, R->InversionsKept,
                    R->Inversions);
  return 0;
}

int runDagger() {
  Expected<TeacherSet> S = TeacherSet::load(DaggerSet);
  if (!S)
    return fail(S.takeError());
  DaggerOptions O;
  O.SetName = DaggerSet;
  O.Build.CorpusDir = DaggerCorpus;
  O.Build.WorkDir = DaggerWorkDir;
  O.Build.Output = DaggerOut;
  O.Build.MaxCompiles = DaggerMaxCompiles;
  O.Build.ModelPath = Student;
  O.Build.Workers = DaggerWorkers;
  O.Build.Verbose = !DaggerQuiet;
  if (DaggerRounds.getNumOccurrences()) {
    StudentOptions SO;
    SO.Epochs = DaggerEpochs;
    SO.Seed = DaggerSeed;
    Expected<DaggerRoundsReport> R = runDaggerRounds(*S, O, DaggerRounds, SO);
    if (!R)
      return fail(R.takeError());
    size_t Sites = S->Sites.size();
    for (size_t K = 0; K < R->Rounds.size(); ++K) {
      outs() << formatv("round {0}: {1} + {2} sites where the search's "
                        "answer differs from the student's (of its {3} "
                        "decisions)\n",
                        K + 1, Sites, R->Rounds[K].second, R->Rounds[K].first);
      Sites += R->Rounds[K].second;
    }
    outs() << formatv("{0}: {1} sites after {2} rounds{3}; fingerprint "
                      "{4}\n",
                      DaggerOut, R->Set.Sites.size(), R->Rounds.size(),
                      R->Rounds.back().second == 0 ? " (the last added none)"
                                                   : "",
                      R->Set.getFingerprint());
    return 0;
  }
  if (DaggerEpochs.getNumOccurrences() || DaggerSeed.getNumOccurrences())
    return fail("--epochs and --seed train the students between rounds: "
                "they are for --rounds");
  Expected<DaggerReport> R = runDaggerRound(*S, O);
  if (!R)
    return fail(R.takeError());
  outs() << formatv("{0}: {1} + {2} sites where the search's answer differs "
                    "from the student's (of its {3} decisions); fingerprint "
                    "{4}\n",
                    DaggerOut, S->Sites.size(), R->Added, R->RolloutSites,
                    R->Set.getFingerprint());
  return 0;
}

tool::RegisterGroup RegGroup("teacher", "Tune a corpus into a teacher set, "
                                        "and train a model to imitate it");
tool::RegisterSubcommand RegBuild(BuildCmd, runBuild);
tool::RegisterSubcommand RegTrain(TrainCmd, runTrain);
tool::RegisterSubcommand RegDagger(DaggerCmd, runDagger);

} // namespace

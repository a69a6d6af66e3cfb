//===- lib/Tune/TuneReport.cpp - What a tune run writes -------------------===//
//
// See mlgo/Tune/TuneReport.h: texts from values; the curve through
// learn::LearningCurve.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/TuneReport.h"

#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Speed/BenchStats.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Percent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;

namespace mlgo {

static std::string formatSummary(const RunReport &R) {
  std::string Md = "# mlgo tune report\n\n";
  Md += formatv("- Corpus: {0} ({1} modules, fingerprint {2}); {3} failed "
                "to compile and {4} left out{5}.\n",
                R.CorpusDir, R.Modules, R.Fingerprint, R.Failures.size(),
                R.Failures.size() == 1 ? "is" : "are",
                R.Failures.empty() ? "" : " (see Failed compiles)");
  Md += formatv("- Model: {0}; order {1}; seed {2}; budget {3}.\n",
                R.ModelDescription, R.OrderDescription, R.Seed, R.Budget);
  Md += formatv("- Search: {0} compiles{1}.\n", R.Compiles,
                R.StoppedByBudget ? ", stopped by the budget" : "");
  if (!R.Lto.empty())
    Md += "- LTO: " + R.Lto + ".\n";
  if (R.HoistedFunctions)
    Md += formatv("- Whole-program decisions: {0} linkonce_odr function{1} "
                  "decided once for {2} ({3} program entries; {4} module "
                  "entries left out, {5} added).\n",
                  R.HoistedFunctions, R.HoistedFunctions == 1 ? "" : "s",
                  R.Programs.size() == 1 ? "the program" : "their program",
                  R.ProgramEntries, R.Removed, R.Added);
  return Md;
}

std::string formatProgramReport(const ProgramReport &P) {
  std::string Section =
      formatv("Linked .text: {5} {0}, model {1}, tuned {2} bytes ({3:F2}% vs "
              "{5}, {4:F2}% vs the model).\n\n",
              P.Stock, P.Model, P.Tuned, percentChange(P.Stock, P.Tuned),
              percentChange(P.Model, P.Tuned), P.Baseline)
          .str();
  if (!P.FormNote.empty())
    Section += P.FormNote + "\n\n";
  for (const std::string &L : P.KeptLines)
    Section += L + "\n";
  return Section;
}

std::string formatReport(const RunReport &R) {
  std::string Md = formatSummary(R);
  std::string Baseline =
      R.Programs.empty() ? std::string("-Oz") : R.Programs[0].Baseline;
  Md +=
      formatv("\n| program | {0} | model | tuned | tuned vs {0} | tuned vs "
              "model | modules tuned |\n|---|---:|---:|---:|---:|---:|---:|\n",
              Baseline);
  uint64_t TS = 0, TM = 0, TT = 0;
  for (const ProgramReport &P : R.Programs) {
    Md += formatv("| {0} | {1} | {2} | {3} | {4:F2}% | {5:F2}% | {6} of {7} "
                  "|\n",
                  P.Shown, P.Stock, P.Model, P.Tuned,
                  percentChange(P.Stock, P.Tuned),
                  percentChange(P.Model, P.Tuned), P.UnitsTuned, P.Units);
    TS += P.Stock;
    TM += P.Model;
    TT += P.Tuned;
  }
  if (R.Programs.size() > 1)
    Md += formatv("| total | {0} | {1} | {2} | {3:F2}% | {4:F2}% | |\n", TS, TM,
                  TT, percentChange(TS, TT), percentChange(TM, TT));
  for (const ProgramReport &P : R.Programs)
    Md += "\n## " + P.Shown + "\n\n" + formatProgramReport(P);
  if (!R.Failures.empty()) {
    if (!StringRef(Md).ends_with("\n\n"))
      Md += "\n";
    Md += "## Failed compiles\n\nThese modules are in no program above and "
          "the decisions file has no entries for them. A timeout or a killed "
          "worker is not cached: rerunning the same command compiles them "
          "again.\n\n";
    for (const std::string &F : R.Failures)
      Md += "- " + F + "\n";
  }
  return Md;
}

std::string formatTries(ArrayRef<TryRecord> Tries,
                        function_ref<std::string(size_t)> ProgramOf,
                        function_ref<std::string(size_t)> UnitKey) {
  std::string Tsv = "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\t"
                    "callee_sites\tposition\tunit_text\tdelta\tok\tkept\n";
  for (const TryRecord &T : Tries) {
    const MoveFeatures &F = T.Move.Features;
    Tsv += formatv("{0}\t{1}\t{2}\t{3}\t{4}\t{5}\t{6}\t{7}\t{8}\t{9}\t{10}\t{"
                   "11}\t{12}\n",
                   T.Step, T.Compiles, ProgramOf(T.Unit), UnitKey(T.Unit),
                   T.Move.getKey(), formatv("{0:F4}", F.Logit), F.Changed,
                   F.CalleeSites, F.Position, T.UnitText, T.Delta,
                   unsigned(T.Ok), unsigned(T.Kept))
               .str();
  }
  return Tsv;
}

Error writeCurve(StringRef Stem, ArrayRef<CurvePoint> Curve,
                 uint64_t ModelTotal) {
  // The table keeps integers as integers (LearningCurve's CSV writes
  // numbers in their shortest exact form, 1e+03 for 1000); the plot is
  // LearningCurve's.
  std::string Csv = "compiles,linked bytes,% vs the model,seconds\n";
  learn::LearningCurve Plot("mlgo tune: linked .text against the model's, "
                            "by compiles",
                            "compiles", {"% vs the model"});
  for (const CurvePoint &P : Curve) {
    const double Percent = percentChange(ModelTotal, P.Total);
    Csv += formatv("{0},{1},{2:F3},{3:F1}\n", P.Compiles, P.Total, Percent,
                   P.Seconds)
               .str();
    Plot.addPoint(P.Compiles, {Percent});
  }
  if (Error E = writeFileAtomically((Stem + ".csv").str(), Csv))
    return E;
  return Plot.saveSVG((Stem + ".svg").str());
}

std::string formatSpeedPercent(double New, double Old) {
  double P = Old == 0 ? 0 : 100.0 * (New - Old) / Old;
  return (P < 0 ? "-" : "+") + formatv("{0:f3}", std::fabs(P)).str() + "%";
}

/// \p R's modules, hottest (Base) first; ties in corpus order.
static std::vector<const SpeedModuleReport *>
sortedByHeat(const SpeedRunReport &R) {
  std::vector<const SpeedModuleReport *> Sorted;
  for (const SpeedModuleReport &M : R.Modules)
    Sorted.push_back(&M);
  llvm::stable_sort(Sorted,
                    [](const SpeedModuleReport *A, const SpeedModuleReport *B) {
                      return A->Base > B->Base;
                    });
  return Sorted;
}

static void printSpeedSummary(raw_ostream &OS, const SpeedRunReport &R) {
  double Tuned = 0, ModelTotal = 0, InliningGain = 0, EvictionGain = 0;
  size_t InlineEntries = 0, EvictEntries = 0;
  for (const SpeedModuleReport &M : R.Modules) {
    Tuned += M.Final;
    ModelTotal += M.Searched ? M.Model : M.Base;
    InliningGain += M.InliningGain;
    EvictionGain += M.EvictionGain;
    InlineEntries += M.SiteEntries;
    EvictEntries += M.EvictionEntries;
  }
  const double BaseTotal = R.BaseTotal;
  OS << "# mlgo tune --objective speed"
     << (R.ProgramName.empty() ? "" : ": " + R.ProgramName) << "\n\n"
     << "Corpus `" << R.CorpusDir << "` (" << R.Modules.size()
     << " modules, fingerprint " << R.Fingerprint << "), profile `" << R.Profile
     << "`"
     << (R.EvictModel ? ", eviction model `" + R.ModelMeta + "`"
                      : std::string())
     << ", seed " << R.Seed << ", "
     << (R.MaxCompiles ? std::to_string(R.MaxCompiles) + " search compiles"
                       : std::string("no budget"))
     << ", " << R.HotFunctions << " hot functions (" << int(R.HotShare * 100)
     << "% of the profile-weighted instructions).\n\n"
     << "Estimated executed instructions (profile-weighted, from the "
        "objects): clang-19 -O2 -fprofile-use "
     << formatv("{0:f0}", BaseTotal)
     << ", the eviction model on the inlining "
        "entries "
     << formatv("{0:f0}", ModelTotal) << ", tuned " << formatv("{0:f0}", Tuned)
     << " (" << formatSpeedPercent(Tuned, BaseTotal) << "): inlining "
     << formatSpeedPercent(BaseTotal - InliningGain, BaseTotal) << " ("
     << InlineEntries << " entries), eviction "
     << formatSpeedPercent(BaseTotal - EvictionGain, BaseTotal) << " ("
     << EvictEntries << " entries). Search: " << R.SearchCompiles
     << " compiles.\n\n";
  if (!R.LeftOut.empty())
    OS << formatLeftOut(R.LeftOut, R.Profile) << ".\n\n";
}

std::string formatLeftOut(ArrayRef<std::string> LeftOut, StringRef Profile) {
  constexpr size_t Named = 10;
  std::string S =
      formatv("{0} {1} of the corpus define{2} no function of the profile "
              "{3} (another program's?) and {4} left out of the search: ",
              LeftOut.size(), LeftOut.size() == 1 ? "module" : "modules",
              LeftOut.size() == 1 ? "s" : "", Profile,
              LeftOut.size() == 1 ? "is" : "are")
          .str();
  for (size_t I = 0; I < LeftOut.size() && I < Named; ++I)
    S += (I ? ", " : "") + LeftOut[I];
  if (LeftOut.size() > Named)
    S += formatv(" and {0} more", LeftOut.size() - Named).str();
  return S;
}

static void printSpeedModules(raw_ostream &OS, const SpeedRunReport &R,
                              ArrayRef<const SpeedModuleReport *> Sorted) {
  OS << "| module | LLVM | model | tuned | predicted | inlining | eviction "
        "| entries | tries | kept | cycles: LLVM | tuned |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const SpeedModuleReport *M : Sorted) {
    if (!M->Searched)
      continue;
    double B = M->Base;
    OS << "| " << M->Key << " | " << formatv("{0:f0}", B) << " | "
       << formatv("{0:f0}", M->Model) << " | " << formatv("{0:f0}", M->Final)
       << " | " << formatSpeedPercent(M->Final, B) << " | "
       << formatSpeedPercent(B - M->InliningGain, B) << " | "
       << formatSpeedPercent(B - M->EvictionGain, B) << " | " << M->SiteEntries
       << "+" << M->EvictionEntries << " | " << M->InlineTries << "+"
       << M->EvictTries << " | " << M->InlineKept << "+" << M->EvictKept
       << " | " << formatv("{0:f0}", M->BaseCycles) << " | "
       << formatv("{0:f0}", M->FinalCycles) << " |\n";
  }
  OS << "\n`model`: the eviction model with the kept inlining entries, "
        "before eviction moves. `inlining`, `eviction`: what each saved of "
        "the module's -O2 cost; `entries`, `tries`, `kept`: inlining + "
        "eviction.\n";
  if (R.MaxCompiles) {
    OS << "\nBudget: " << R.MaxCompiles
       << " compiles split over the modules by their hot cost; " << R.HandedOn
       << " of them handed on by modules out of moves to those stopped by "
          "theirs ("
       << R.Rounds << (R.Rounds == 1 ? " round" : " rounds") << ").\n";
  }
  OS << "\n| module | share | handed on | tries | out of moves | passes | "
        "later passes: tries | kept |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|\n";
  for (const SpeedModuleReport *M : Sorted) {
    if (!M->Searched)
      continue;
    OS << "| " << M->Key << " | " << M->Share << " | "
       << (M->Budget > M->Share ? M->Budget - M->Share : 0) << " | " << M->Tries
       << " | " << (M->OutOfMoves ? "yes" : "no") << " | " << M->InlinePasses
       << "+" << M->EvictPasses << " | " << M->LaterTries << " | "
       << M->LaterKept << " |\n";
  }
  OS << "\n`share`: the module's part of --max-compiles (0 without one); "
        "`passes`, inlining + eviction: a pass after one that kept a move "
        "tries again the moves it did not keep.\n";
  unsigned PairTries = 0, PairKept = 0;
  for (const SpeedModuleReport *M : Sorted) {
    PairTries += M->PairTries;
    PairKept += M->PairKept;
  }
  if (!PairTries)
    return;
  OS << "\nPairs of eviction inversions (after the single ones, of each "
        "function's "
     << R.NearMisses << " nearest misses): " << PairTries << " tried, "
     << PairKept << " kept.\n\n| module | pairs tried | kept |\n"
     << "|---|---:|---:|\n";
  for (const SpeedModuleReport *M : Sorted)
    if (M->PairTries)
      OS << "| " << M->Key << " | " << M->PairTries << " | " << M->PairKept
         << " |\n";
}

/// "0.9800 [0.9700, 0.9900] faster (12 rounds)": a program timed against
/// the untuned one.
static std::string formatTimed(const speed::WorkloadMeasure &M) {
  assert(M.Ratio && "a program timed");
  const speed::RatioEstimate &E = *M.Ratio;
  return formatv("{0:F4} [{1:F4}, {2:F4}] {3} ({4} rounds)", E.Median, E.CI.Low,
                 E.CI.High, speed::describe(speed::judge(E.CI)), M.Rounds)
      .str();
}

/// What the time of the file's program says: its bench, or that it is the
/// untuned program.
static std::string formatTimedFinal(const WorkloadVerdict &V) {
  if (!V.Final.Rounds)
    return "the untuned program (every changed module reverted)";
  return formatTimed(V.Final);
}

std::string formatWorkloadMeasured(speed::CostKind Cost,
                                   const WorkloadVerdict &V) {
  if (Cost == speed::CostKind::Time)
    return std::string("workload ") +
           (V.Final.HardwareCycles ? "cycles" : "CPU time") +
           ", tuned/untuned: " + formatTimedFinal(V);
  return formatv(
             "workload {0}: untuned {1}, tuned {2} ({3})",
             Cost == speed::CostKind::Cycles ? "estimated cycles"
                                             : "executed instructions",
             V.Untuned.Count, V.Final.Count,
             formatSpeedPercent(double(V.Final.Count), double(V.Untuned.Count)))
      .str();
}

/// The workload table of --cost time: each module's bench against the
/// untuned program.
static void printTimedWorkload(raw_ostream &OS, const SpeedRunReport &R,
                               ArrayRef<const SpeedModuleReport *> Sorted) {
  const WorkloadVerdict &V = *R.Verdict;
  const char *Measure =
      V.AllTuned.HardwareCycles ? "hardware cycles" : "CPU time";
  OS << "## Measured on the workload\n\n"
     << "`" << R.Workload << "` timed against the untuned program (`mlgo "
     << "bench`'s engine: alternated rounds, the " << Measure
     << " of the workload command, the median of the paired ratios with its "
        "bootstrap 95% interval; "
     << V.Runs
     << " programs measured, each tuned one in a bench of its own): every "
        "changed module tuned "
     << formatTimed(V.AllTuned) << ", the file's program "
     << formatTimedFinal(V)
     << ". A module is kept only when its interval lies below 1, and the "
        "file's program only when its own does too.\n\n"
     << "| module | predicted | measured alone: " << Measure
     << " ratio [95% interval] | verdict |\n"
     << "|---|---:|---:|---|\n";
  for (const SpeedModuleReport *M : Sorted) {
    if (!M->MeasuredAlone)
      continue;
    speed::Verdict Alone = speed::judge(M->MeasuredAlone->Ratio->CI);
    OS << "| " << M->Key << " | " << formatSpeedPercent(M->Predicted, M->Base)
       << " of the module | " << formatTimed(*M->MeasuredAlone) << " | ";
    if (!M->Reverted)
      OS << "kept";
    else if (Alone == speed::Verdict::Faster)
      OS << "reverted: faster alone, the file's program not";
    else
      OS << "reverted: " << speed::describe(Alone);
    OS << " |\n";
  }
}

static void printSpeedWorkload(raw_ostream &OS, const SpeedRunReport &R,
                               ArrayRef<const SpeedModuleReport *> Sorted) {
  if (!R.Verdict) {
    OS << "Measured gains: not measured by this run (`--workload CMD` "
          "measures them; `mlgo eval package --profile P --decisions FILE` "
          "builds and measures both).\n";
    return;
  }
  if (R.Cost == speed::CostKind::Time)
    return printTimedWorkload(OS, R, Sorted);
  const WorkloadVerdict &V = *R.Verdict;
  auto Pct = [&](const speed::WorkloadMeasure &M) {
    return formatSpeedPercent(double(M.Count), double(V.Untuned.Count));
  };
  OS << "## Measured on the workload\n\n"
     << "`" << R.Workload << "` under callgrind";
  if (R.Cost == speed::CostKind::Cycles)
    OS << "'s cache and branch simulation (estimated cycles: Ir + 10 x L1 "
          "misses + 100 x LL misses + 15 x mispredicted branches, ";
  else
    OS << " (executed instructions ";
  OS << "from main, in the program's own processes; " << V.Runs
     << " programs measured): untuned " << V.Untuned.Count
     << ", every changed module tuned " << V.AllTuned.Count << " ("
     << Pct(V.AllTuned) << "), the file's program " << V.Final.Count << " ("
     << Pct(V.Final) << ").\n\n"
     << "| module | predicted | measured alone | verdict |\n"
     << "|---|---:|---:|---|\n";
  for (const SpeedModuleReport *M : Sorted) {
    if (!M->MeasuredAlone)
      continue;
    OS << "| " << M->Key << " | " << formatSpeedPercent(M->Predicted, M->Base)
       << " of the module | " << Pct(*M->MeasuredAlone) << " of the program | "
       << (M->Reverted ? "reverted: measured worse" : "kept") << " |\n";
  }
}

static void printSpeedKeys(raw_ostream &OS, const SpeedRunReport &R) {
  OS << "\n## What the caches are keyed on\n\n"
     << "A compile's result (`speed/`) is read back only for the same "
        "module (its bitcode and command), profile (its bytes), entries, "
        "eviction (LLVM's, or the model "
     << R.ModelMeta << "), mlgo and compiler:\n\n```\n"
     << StringRef(R.BuildIdentity).rtrim() << "\n"
     << R.ClangVersion << "\n```\n";
  if (!R.Verdict)
    return;
  if (R.Cost == speed::CostKind::Time)
    OS << "\nA workload time is never read back: time is not a function of "
          "the program, so every run benches again (`workload/<variant>/"
          "time.json` keeps the last bench for the reader). What is read "
          "back is each variant's linked program, for the same objects, "
          "`--link` and `--workload` commands, mlgo (as above), `"
       << StringRef(R.ValgrindVersion).split('\n').first << "` and ";
  else
    OS << "\nA workload measurement (`workload/`) is read back only for "
          "the same objects, `--link` and `--workload` commands, "
       << (R.Cost == speed::CostKind::Cycles ? "cost (`--cost cycles`), " : "")
       << "mlgo (as above), `" << StringRef(R.ValgrindVersion).split('\n').first
       << "` and ";
  if (R.WorkloadInputs.empty())
    OS << "no `--workload-input` (a file the workload reads that is not "
          "named by `--workload-input` can change without a new "
          "measurement).\n";
  else
    OS << "the bytes of each `--workload-input`: `"
       << join(R.WorkloadInputs, "`, `") << "`.\n";
}

std::string formatSpeedReport(const SpeedRunReport &R) {
  std::vector<const SpeedModuleReport *> Sorted = sortedByHeat(R);
  std::string Rep;
  raw_string_ostream OS(Rep);
  printSpeedSummary(OS, R);
  printSpeedModules(OS, R, Sorted);
  OS << "\n";
  printSpeedWorkload(OS, R, Sorted);
  printSpeedKeys(OS, R);
  return Rep;
}

std::string formatSpeedMoves(const SpeedRunReport &R) {
  std::string Log = "module\tkind\tfunction\tdecision\tdelta\tkept\n";
  for (const SpeedModuleReport *M : sortedByHeat(R))
    for (const std::string &L : M->Moves)
      Log += L + "\n";
  return Log;
}

Error writeSpeedCurve(StringRef Path, const SpeedRunReport &R) {
  learn::LearningCurve Curve("mlgo tune --objective speed: estimated gain",
                             "search compiles",
                             {"estimated gain, % of executed instructions"});
  Curve.addPoint(0, {0.0});
  uint64_t At = 0;
  double Gain = 0;
  for (const SpeedModuleReport *M : sortedByHeat(R)) {
    double Prev = M->Base;
    for (auto [Try, Cost] : M->Kept) {
      if (Cost < Prev) {
        Gain += Prev - Cost;
        Prev = Cost;
      }
      Curve.addPoint(At + Try, {100.0 * Gain / R.BaseTotal});
    }
    At += M->Tries;
  }
  Curve.addPoint(At, {100.0 * Gain / R.BaseTotal});
  return Curve.saveSVG(Path);
}

} // namespace mlgo

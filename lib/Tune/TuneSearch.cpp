//===- lib/Tune/TuneSearch.cpp - The moves of per-program tuning ----------===//
//
// See mlgo/Tune/TuneSearch.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/TuneSearch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

using namespace llvm;

namespace mlgo {

StringRef getName(TuneOrder O) {
  return O == TuneOrder::Guided ? "guided" : "unguided";
}

std::string TuneMove::getKey() const {
  if (Heuristic)
    return "heuristic";
  const char *D = Entry.Inline ? "inline" : "no-inline";
  if (Entry.isGroup())
    return "group " + encodeName(Entry.Callee) + " " + D;
  return "site " + encodeName(Entry.Caller) + " " + encodeName(Entry.Callee) +
         " " + std::to_string(Entry.Ordinal) + " " + D;
}

std::string TuneMove::describe() const {
  if (Heuristic)
    return "LLVM's heuristic";
  if (Entry.isGroup())
    return (Entry.Inline ? "inline every call of " : "inline no call of ") +
           Entry.Callee;
  return (Entry.Inline ? "inline " : "do not inline ") + Entry.Callee +
         " into " + Entry.Caller + " #" + std::to_string(Entry.Ordinal);
}

/// The tie-breaker of move \p Key under \p Seed.
static uint64_t tieBreak(StringRef Key, uint64_t Seed) {
  MD5 Hash;
  Hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&Seed), 8));
  Hash.update(Key);
  MD5::MD5Result R;
  Hash.final(R);
  return R.low();
}

static double certainty(const DecidedSite &S) {
  return std::isnan(S.Logit) ? std::numeric_limits<double>::infinity()
                             : std::fabs(double(S.Logit));
}

std::vector<TuneMove> planMoves(ArrayRef<DecidedSite> T, TuneOrder Order,
                                uint64_t Seed, const StringSet<> &Tried,
                                bool OfferHeuristic, MoveScore Score) {
  struct Ranked {
    double Rank;
    uint64_t Tie;
    TuneMove Move;
  };
  std::vector<Ranked> Moves;
  auto Add = [&](TuneMove M, double Guided, double Unguided) {
    std::string Key = M.getKey();
    if (Tried.contains(Key))
      return;
    double Rank = Order == TuneOrder::Unguided ? Unguided
                  : M.Heuristic || !Score      ? Guided
                                               : -Score(M);
    if (std::isnan(Rank))
      Rank = std::numeric_limits<double>::infinity();
    Moves.push_back({Rank, tieBreak(Key, Seed), std::move(M)});
  };
  if (OfferHeuristic) {
    TuneMove H;
    H.Heuristic = true;
    Add(H, -std::numeric_limits<double>::infinity(), -1);
  }
  // Each callee's sites, in trajectory order.
  std::map<std::string, std::vector<size_t>> ByCallee;
  for (size_t I = 0; I < T.size(); ++I)
    ByCallee[T[I].Site.Callee].push_back(I);
  for (size_t I = 0; I < T.size(); ++I) {
    TuneMove M;
    M.Entry = T[I].Site;
    M.Entry.Inline = !M.Entry.Inline;
    M.Features = {T[I].Logit, 1, uint32_t(ByCallee[T[I].Site.Callee].size()),
                  uint32_t(I)};
    Add(M, certainty(T[I]), double(I));
  }
  for (const auto &[Callee, Sites] : ByCallee) {
    if (Sites.size() < 2)
      continue;
    for (bool Inline : {true, false}) {
      double Sum = 0, LogitSum = 0;
      size_t Changed = 0, First = 0;
      for (size_t I : Sites)
        if (T[I].Site.Inline != Inline) {
          Sum += certainty(T[I]);
          LogitSum += T[I].Logit;
          if (Changed++ == 0)
            First = I;
        }
      if (Changed == 0)
        continue;
      TuneMove M;
      M.Entry.Callee = Callee;
      M.Entry.Inline = Inline;
      M.Features = {LogitSum / double(Changed), uint32_t(Changed),
                    uint32_t(Sites.size()), uint32_t(First)};
      // Unguided: right after the callee's first site's own move.
      Add(M, Sum / Changed, double(Sites.front()) + 0.5);
    }
  }
  llvm::stable_sort(Moves, [](const Ranked &A, const Ranked &B) {
    return std::tie(A.Rank, A.Tie) < std::tie(B.Rank, B.Tie);
  });
  std::vector<TuneMove> Out;
  for (Ranked &R : Moves)
    Out.push_back(std::move(R.Move));
  return Out;
}

std::vector<TuneMove> planHotMoves(ArrayRef<DecidedSite> T,
                                   const StringMap<double> &Heat, uint64_t Seed,
                                   const StringSet<> &Tried) {
  StringMap<double> CalleeHeat;
  for (const DecidedSite &S : T) {
    double &H = CalleeHeat[S.Site.Callee];
    H = std::max(H, Heat.lookup(S.Site.Caller));
  }
  auto Score = [&](const TuneMove &M) {
    return M.Entry.isGroup() ? CalleeHeat.lookup(M.Entry.Callee)
                             : Heat.lookup(M.Entry.Caller);
  };
  std::vector<TuneMove> Moves =
      planMoves(T, TuneOrder::Guided, Seed, Tried, false, Score);
  // The cold moves rank last (score 0): none is tried.
  llvm::erase_if(Moves, [&](const TuneMove &M) { return Score(M) <= 0; });
  return Moves;
}

ModuleDecisions applyMove(const ModuleDecisions &Fixed, const TuneMove &M) {
  ModuleDecisions Out = Fixed;
  if (M.Entry.isGroup())
    llvm::erase_if(Out.Sites, [&](const SiteDecision &S) {
      return !S.isGroup() && S.Callee == M.Entry.Callee;
    });
  Out.set(M.Entry);
  Out.sort();
  return Out;
}

/// Whether \p Path is a system source (Debian's googletest sources in
/// /usr/src, say): the same path in every build on the machine.
static bool isSystemSource(StringRef Path) { return Path.starts_with("/usr/"); }

std::vector<std::string> getSourceKeys(ArrayRef<std::string> Sources) {
  std::vector<std::string> Keys;
  for (const std::string &S : Sources)
    Keys.push_back(normalizeSourcePath(S));
  // The program's own sources decide the common directory; system ones
  // would shorten it to "/" and leave the build directory in every key.
  bool AllSystem = llvm::all_of(Keys, [](StringRef K) {
    return !K.starts_with("/") || isSystemSource(K);
  });
  std::optional<std::string> Common; // with a trailing '/'
  for (StringRef K : Keys) {
    if (!K.starts_with("/") || (!AllSystem && isSystemSource(K)))
      continue;
    StringRef Dir = K.substr(0, K.rfind('/') + 1);
    if (!Common) {
      Common = Dir.str();
      continue;
    }
    // The longest common prefix that ends with '/'.
    size_t N = 0;
    while (N < Common->size() && N < Dir.size() && (*Common)[N] == Dir[N])
      ++N;
    while (N > 0 && (*Common)[N - 1] != '/')
      --N;
    Common->resize(N);
  }
  for (std::string &K : Keys) {
    if (Common && StringRef(K).starts_with(*Common))
      K = K.substr(Common->size());
    else if (StringRef(K).starts_with("/"))
      K = K.substr(1); // a system source: its whole path
  }
  return Keys;
}

} // namespace mlgo

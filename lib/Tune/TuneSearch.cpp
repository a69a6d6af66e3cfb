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

std::optional<double> getLoggedGain(ArrayRef<DecidedSite> T,
                                    const TuneMove &M) {
  if (M.Heuristic)
    return std::nullopt;
  // The sites the move changes are those decided the other way: a move
  // that takes inlinings away loses their scores, a move that inlines
  // gains the declined sites' (which log 0 unless the compile scored
  // them: CompileJob::WantDeclinedScore).
  const bool Inline = M.Entry.Inline;
  double Sum = 0;
  bool Any = false;
  auto Add = [&](const DecidedSite &S) {
    if (std::isnan(S.Score))
      return false;
    Sum += S.Score;
    Any |= S.Score != 0;
    return true;
  };
  if (M.Entry.isGroup()) {
    for (const DecidedSite &S : T)
      if (S.Site.Callee == M.Entry.Callee && S.Site.Inline != Inline && !Add(S))
        return std::nullopt;
  } else {
    auto Same = [&](const DecidedSite &S) {
      return S.Site.Caller == M.Entry.Caller &&
             S.Site.Callee == M.Entry.Callee &&
             S.Site.Ordinal == M.Entry.Ordinal;
    };
    const DecidedSite *Site = nullptr;
    if (M.Features.Position < T.size() && Same(T[M.Features.Position]))
      Site = &T[M.Features.Position];
    else if (auto It = llvm::find_if(T, Same); It != T.end())
      Site = &*It;
    if (!Site || Site->Site.Inline == Inline || !Add(*Site))
      return std::nullopt;
  }
  if (!Any)
    return std::nullopt;
  return Inline ? Sum : -Sum;
}

std::vector<LoggedBadMove> filterByLoggedGain(ArrayRef<DecidedSite> T,
                                              std::vector<TuneMove> &Moves,
                                              bool Rank, bool Promote,
                                              bool Only, size_t PredictInline) {
  std::vector<TuneMove> Kept, Out;
  std::vector<std::pair<double, TuneMove>> Good;
  std::vector<LoggedBadMove> Bad;
  for (TuneMove &M : Moves) {
    std::optional<double> Gain = getLoggedGain(T, M);
    if (Promote && Gain && *Gain > 0) {
      Good.push_back({*Gain, std::move(M)});
      continue;
    }
    bool Keep = Only ? M.Heuristic || (Gain && *Gain > 0) : !Gain || *Gain >= 0;
    // A move that inlines and that the scores do not predict to shrink
    // the module, left to the prediction (one of the first PredictInline).
    if (!Keep && Only && PredictInline && !M.Heuristic && M.Entry.Inline) {
      --PredictInline;
      Keep = true;
    }
    if (Keep) {
      Kept.push_back(std::move(M));
      continue;
    }
    Bad.push_back(
        {M.getKey(), Gain ? *Gain : std::numeric_limits<double>::quiet_NaN()});
    Out.push_back(std::move(M));
  }
  if (Rank)
    Kept.insert(Kept.end(), std::make_move_iterator(Out.begin()),
                std::make_move_iterator(Out.end()));
  if (!Good.empty()) {
    llvm::stable_sort(
        Good, [](const auto &A, const auto &B) { return A.first > B.first; });
    auto At = Kept.begin();
    if (At != Kept.end() && At->Heuristic)
      ++At;
    std::vector<TuneMove> Front;
    for (auto &[Gain, M] : Good)
      Front.push_back(std::move(M));
    Kept.insert(At, std::make_move_iterator(Front.begin()),
                std::make_move_iterator(Front.end()));
  }
  Moves = std::move(Kept);
  return Bad;
}

std::vector<ProgramMove>
planProgramMoves(ArrayRef<std::vector<DecidedSite>> Copies, TuneOrder Order,
                 uint64_t Seed, const StringSet<> &Tried, MoveScore Score) {
  // Each site's (copy, index) pairs, the sites in order of first
  // appearance (link order, then trajectory order).
  using SiteKey = std::tuple<std::string, std::string, uint32_t>;
  std::map<SiteKey, std::vector<std::pair<size_t, size_t>>> Holders;
  std::vector<SiteKey> Order0;
  for (size_t C = 0; C < Copies.size(); ++C)
    for (size_t I = 0; I < Copies[C].size(); ++I) {
      const SiteDecision &S = Copies[C][I].Site;
      SiteKey K{S.Caller, S.Callee, S.Ordinal};
      auto [It, New] = Holders.try_emplace(K);
      if (New)
        Order0.push_back(K);
      It->second.push_back({C, I});
    }
  struct Ranked {
    double Rank;
    uint64_t Tie;
    ProgramMove Move;
  };
  std::vector<Ranked> Moves;
  for (size_t Pos = 0; Pos < Order0.size(); ++Pos) {
    const auto &Held = Holders[Order0[Pos]];
    if (Held.size() < 2)
      continue;
    for (bool Inline : {true, false}) {
      ProgramMove PM;
      for (auto [C, I] : Held)
        if (Copies[C][I].Site.Inline != Inline)
          PM.Copies.push_back(C);
      if (PM.Copies.size() < 2)
        continue;
      // The site as the first copy it changes has it.
      const DecidedSite *First = nullptr;
      for (auto [C, I] : Held)
        if (C == PM.Copies.front()) {
          First = &Copies[C][I];
          break;
        }
      uint32_t CalleeSites = 0;
      for (const DecidedSite &S : Copies[PM.Copies.front()])
        CalleeSites += S.Site.Callee == First->Site.Callee;
      PM.Move.Entry = First->Site;
      PM.Move.Entry.Inline = Inline;
      PM.Move.Features = {First->Logit, 1, CalleeSites, uint32_t(Pos)};
      std::string Key = PM.getKey();
      if (Tried.contains(Key))
        continue;
      double Rank = Order == TuneOrder::Unguided ? double(Pos)
                    : Score                      ? -Score(PM.Move)
                                                 : certainty(*First);
      if (std::isnan(Rank))
        Rank = std::numeric_limits<double>::infinity();
      Moves.push_back({Rank, tieBreak(Key, Seed), std::move(PM)});
    }
  }
  llvm::stable_sort(Moves, [](const Ranked &A, const Ranked &B) {
    return std::tie(A.Rank, A.Tie) < std::tie(B.Rank, B.Tie);
  });
  std::vector<ProgramMove> Out;
  for (Ranked &R : Moves)
    Out.push_back(std::move(R.Move));
  return Out;
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

ModuleDecisions fixAll(StringRef Module, ArrayRef<DecidedSite> T) {
  ModuleDecisions Out;
  Out.Module = Module.str();
  for (const DecidedSite &S : T)
    Out.Sites.push_back(S.Site);
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

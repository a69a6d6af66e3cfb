//===- lib/Eval/Table.cpp - Text tables in three formats ------------------===//
//
// Terminal, Markdown and CSV rendering of a table of strings (see
// mlgo/Eval/Table.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/Table.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Percent.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {

Expected<ReportFormat> parseReportFormat(StringRef Name) {
  if (Name == "table")
    return ReportFormat::Table;
  if (Name == "markdown")
    return ReportFormat::Markdown;
  if (Name == "csv")
    return ReportFormat::CSV;
  return makeError("unknown format '" + Name +
                   "'; expected table, markdown or csv");
}

static size_t getColumnCount(const Table &T) {
  size_t N = T.Header.size();
  for (const auto &Row : T.Rows)
    N = std::max(N, Row.size());
  return N;
}

static StringRef getCell(const std::vector<std::string> &Row, size_t I) {
  return I < Row.size() ? StringRef(Row[I]) : StringRef();
}

void Table::printTerminal(raw_ostream &OS) const {
  size_t N = getColumnCount(*this);
  std::vector<size_t> Width(N, 0);
  auto Measure = [&](const std::vector<std::string> &Row) {
    for (size_t I = 0; I < N; ++I)
      Width[I] = std::max(Width[I], getCell(Row, I).size());
  };
  Measure(Header);
  for (const auto &Row : Rows)
    Measure(Row);
  size_t Total = 0;
  for (size_t I = 0; I < N; ++I)
    Total += Width[I] + (I ? 2 : 0);

  auto PrintRow = [&](const std::vector<std::string> &Row) {
    std::string Line;
    for (size_t I = 0; I < N; ++I) {
      StringRef Cell = getCell(Row, I);
      std::string Pad(Width[I] - Cell.size(), ' ');
      if (I)
        Line += "  ";
      Line += I == 0 ? (Cell + Pad).str() : (Pad + Cell).str();
    }
    OS << StringRef(Line).rtrim() << '\n';
  };
  std::string Rule(Total, '-');
  PrintRow(Header);
  OS << Rule << '\n';
  for (size_t R = 0; R < Rows.size(); ++R) {
    if (llvm::is_contained(RulesBefore, R))
      OS << Rule << '\n';
    PrintRow(Rows[R]);
  }
}

/// Markdown cells cannot hold a bare '|'.
static std::string escapeMarkdown(StringRef Cell) {
  std::string Out;
  for (char C : Cell) {
    if (C == '|')
      Out += '\\';
    Out += C;
  }
  return Out;
}

void Table::printMarkdown(raw_ostream &OS) const {
  size_t N = getColumnCount(*this);
  auto PrintRow = [&](const std::vector<std::string> &Row) {
    OS << '|';
    for (size_t I = 0; I < N; ++I)
      OS << ' ' << escapeMarkdown(getCell(Row, I)) << " |";
    OS << '\n';
  };
  PrintRow(Header);
  OS << '|';
  for (size_t I = 0; I < N; ++I)
    OS << (I == 0 ? " --- |" : " ---: |");
  OS << '\n';
  for (const auto &Row : Rows)
    PrintRow(Row);
}

static std::string quoteCSV(StringRef Cell) {
  if (Cell.find_first_of(",\"\n\r") == StringRef::npos)
    return Cell.str();
  std::string Out = "\"";
  for (char C : Cell) {
    if (C == '"')
      Out += '"';
    Out += C;
  }
  return Out + "\"";
}

void Table::printCSV(raw_ostream &OS) const {
  size_t N = getColumnCount(*this);
  auto PrintRow = [&](const std::vector<std::string> &Row) {
    for (size_t I = 0; I < N; ++I)
      OS << (I ? "," : "") << quoteCSV(getCell(Row, I));
    OS << '\n';
  };
  PrintRow(Header);
  for (const auto &Row : Rows)
    PrintRow(Row);
}

void Table::print(raw_ostream &OS, ReportFormat Format) const {
  switch (Format) {
  case ReportFormat::Table:
    return printTerminal(OS);
  case ReportFormat::Markdown:
    return printMarkdown(OS);
  case ReportFormat::CSV:
    return printCSV(OS);
  }
}

std::string formatDeltaPercent(uint64_t Base, uint64_t Value) {
  if (Base == 0)
    return "n/a";
  double Delta = percentChange(Base, Value);
  // Print -0.004 as +0.00%, not -0.00%.
  if (Delta > -0.005 && Delta < 0.005)
    Delta = 0;
  return formatv("{0}{1:f2}%", Delta >= 0 ? "+" : "", Delta).str();
}

} // namespace mlgo

//===- mlgo/Eval/Table.h - Text tables in three formats ---------*- C++ -*-===//
//
// Every report of `mlgo eval` is a table of strings printed in one of three
// formats: an aligned terminal table, GitHub Markdown, or CSV (RFC 4180
// quoting). Keeping the rendering separate from the numbers lets the
// reports be tested with exact expected strings, and keeps the three
// formats in agreement (same rows, same cells).
//
// This file needs LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_TABLE_H
#define MLGO_EVAL_TABLE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlgo {

/// How a report is printed.
enum class ReportFormat { Table, Markdown, CSV };

/// Parses "table", "markdown" or "csv".
llvm::Expected<ReportFormat> parseReportFormat(llvm::StringRef Name);

/// A table of strings. Column 0 is left-aligned, the others right-aligned
/// (they hold numbers).
struct Table {
  std::vector<std::string> Header;
  std::vector<std::vector<std::string>> Rows;
  /// Indices of rows preceded by a rule in the terminal format (totals).
  std::vector<size_t> RulesBefore;

  void addRow(std::vector<std::string> Row) { Rows.push_back(std::move(Row)); }
  void addRuleBeforeNextRow() { RulesBefore.push_back(Rows.size()); }

  /// Columns separated by two spaces, padded to the widest cell; a rule of
  /// dashes under the header and before each row of RulesBefore.
  void printTerminal(llvm::raw_ostream &OS) const;
  /// A GitHub Markdown table (numbers right-aligned with "---:").
  void printMarkdown(llvm::raw_ostream &OS) const;
  /// CSV: a header line and one line per row; cells quoted when they contain
  /// a comma, a quote or a newline.
  void printCSV(llvm::raw_ostream &OS) const;
  void print(llvm::raw_ostream &OS, ReportFormat Format) const;
};

/// "+1.25%", "-0.50%", "+0.00%": the change from \p Base to \p Value in
/// percent of \p Base, two decimals; "n/a" when \p Base is 0.
std::string formatDeltaPercent(uint64_t Base, uint64_t Value);

} // namespace mlgo

#endif // MLGO_EVAL_TABLE_H

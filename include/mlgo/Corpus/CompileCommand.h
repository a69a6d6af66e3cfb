//===- mlgo/Corpus/CompileCommand.h - Replaying a corpus module -*- C++ -*-===//
//
// Rebuilds the command that compiles one corpus module exactly as clang
// compiled the original source: `clang-19 -cc1 <stored cc1 args> -x ir
// <module>.bc -o <out>`. This is the basis of training (the compile worker
// runs it with the plugin and its options added) and of evaluation.
//
// The stored arguments (.llvmcmd) are the cc1 arguments of the original
// compile minus what clang itself leaves out (-o, the input, -x, -W...).
// What still refers to the original compile's files or to bitcode embedding
// is dropped (see filterCC1Args); everything that shapes code generation
// (-triple, -O level, -target-cpu, -f flags, -mllvm options) is kept as is.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_COMPILECOMMAND_H
#define MLGO_CORPUS_COMPILECOMMAND_H

#include "mlgo/Corpus/CorpusDescription.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

/// The clang that replays corpus modules unless told otherwise.
inline constexpr llvm::StringLiteral DefaultClang = "clang-19";

/// Splits the contents of a .cmd file / .llvmcmd section (arguments each
/// terminated by NUL) into arguments.
std::vector<std::string> splitCommandSection(llvm::StringRef Section);

/// Joins arguments back into the .cmd format (each terminated by NUL).
std::string joinCommandSection(llvm::ArrayRef<std::string> Args);

/// Drops from stored cc1 arguments everything that refers to the original
/// compile's input, outputs and side files, or to bitcode embedding: a
/// leading "-cc1", "-o X", "-x X", "-fembed-bitcode*", "-dumpdir X",
/// "-dependency-file X", "-MT X", "-MQ X", "-sys-header-deps",
/// "-module-file-deps", "-split-dwarf-output X", "-coverage-notes-file X",
/// "-coverage-data-file X", "-opt-record-file X", "-stats-file=X",
/// "-ftime-trace=X" and any argument that is not an option (an input).
std::vector<std::string> filterCC1Args(llvm::ArrayRef<std::string> CC1Args);

/// What to compile and how.
struct CompileRequest {
  /// The clang driver binary ("clang-19", or a path).
  std::string Clang = std::string(DefaultClang);
  /// The module's stored cc1 arguments (its .cmd file, split).
  std::vector<std::string> CC1Args;
  std::string BitcodePath;
  std::string OutputPath;
  /// Appended after the stored arguments, e.g. "-fpass-plugin=P.so",
  /// "-mllvm", "-mlgo-...", or "-S" to get assembly.
  std::vector<std::string> ExtraArgs;
};

/// The full argv (argv[0] is Request.Clang):
///   Clang -cc1 filterCC1Args(CC1Args)... ExtraArgs... -x ir Bitcode -o Out
std::vector<std::string> buildCompileCommand(const CompileRequest &Request);

/// The stored cc1 arguments of \p Module in the corpus at \p Dir: the
/// description's global_command_override when it has one, else the module's
/// .cmd file.
llvm::Expected<std::vector<std::string>>
readModuleCC1Args(llvm::StringRef Dir, const CorpusDescription &Description,
                  llvm::StringRef Module);

/// Everything at once: the argv compiling \p Module of the corpus at \p Dir
/// into \p OutputPath with \p ExtraArgs added. Fails if the module is not in
/// the corpus or its files are missing.
llvm::Expected<std::vector<std::string>>
getModuleCompileCommand(llvm::StringRef Dir,
                        const CorpusDescription &Description,
                        llvm::StringRef Module, llvm::StringRef OutputPath,
                        llvm::ArrayRef<std::string> ExtraArgs = {},
                        llvm::StringRef Clang = DefaultClang);

/// Runs \p Argv (argv[0] is looked up in PATH unless it is a path), waiting
/// at most \p TimeoutSeconds (0: no limit; the program is killed when it
/// passes). Safe to call from many threads at once (see runProcess in
/// mlgo/Support/Process.h). On failure, the error names the program, says
/// how it ended and includes the first 2000 bytes of its standard error:
/// "clang-19 exited with status 1:\n<stderr>", "clang-19 was killed by
/// signal 11 (Segmentation fault):\n<stderr>", "clang-19 timed out after
/// 60 s".
llvm::Error runCommand(llvm::ArrayRef<std::string> Argv,
                       unsigned TimeoutSeconds = 0);

/// Quotes \p Argv for a POSIX shell, for messages and --print-command.
std::string shellQuote(llvm::ArrayRef<std::string> Argv);

} // namespace mlgo

#endif // MLGO_CORPUS_COMPILECOMMAND_H

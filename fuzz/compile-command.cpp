//===- fuzz/compile-command.cpp - Fuzz .cmd parsing -----------------------===//
//
// Feeds the input, as the contents of a module's .cmd file (NUL-terminated
// cc1 arguments, as clang embeds them), to splitCommandSection, then
// filterCC1Args and buildCompileCommand, which turn it into the command
// that replays the module, and shellQuote, which shows it. Splitting must
// invert joinCommandSection, and the command must end in the module.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/CompileCommand.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Args = splitCommandSection(Input);
  std::string Joined = joinCommandSection(Args);
  if ((Input.empty() || Input.back() == '\0') ? Joined != Input
                                              : Joined != Input.str() + '\0')
    std::abort();
  if (splitCommandSection(Joined) != Args)
    std::abort();
  CompileRequest R;
  R.CC1Args = Args;
  R.BitcodePath = "m.bc";
  R.OutputPath = "m.o";
  std::vector<std::string> Argv = buildCompileCommand(R);
  if (Argv.size() < 6 || Argv[0] != R.Clang || Argv[1] != "-cc1" ||
      Argv[Argv.size() - 3] != "m.bc" || Argv.back() != "m.o")
    std::abort();
  (void)shellQuote(Argv);
  return 0;
}

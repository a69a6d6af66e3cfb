//===- unittests/Corpus/CorpusTest.cpp - MLGOCorpus unit tests ------------===//
//
// The parts of the corpus library that need no compiler run: the cc1
// argument filter and the replay command, runCommand's messages and its
// timeout from a thread pool (with sh and sleep), corpus_description.json
// round-trips, and combine's refusal of corpora whose settings differ.
// Extraction and replay against real clang-19 objects are lit tests
// (test/Corpus/).
//
//===----------------------------------------------------------------------===//

#include "CorpusTestUtil.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Extract.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <csignal>
#include <cstring>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

using Args = std::vector<std::string>;

TEST(CompileCommandTest, SplitsAndJoinsNulSeparatedArguments) {
  static const char Raw[] = "-cc1\0-triple\0x86_64-pc-linux-gnu\0-Oz\0";
  std::string Section(Raw, sizeof(Raw) - 1);
  Args Split = splitCommandSection(Section);
  EXPECT_EQ(Split, (Args{"-cc1", "-triple", "x86_64-pc-linux-gnu", "-Oz"}));
  EXPECT_EQ(joinCommandSection(Split), Section);
  EXPECT_TRUE(splitCommandSection("").empty());
}

TEST(CompileCommandTest, DropsInputOutputAndEmbeddingArguments) {
  Args Stored{"-cc1",
              "-triple",
              "x86_64-pc-linux-gnu",
              "-emit-obj",
              "-main-file-name",
              "a.c",
              "-dependency-file",
              "a.d",
              "-MT",
              "a.o",
              "-sys-header-deps",
              "-Oz",
              "-fembed-bitcode=all",
              "-dumpdir",
              "out/",
              "-mllvm",
              "-inline-threshold=5",
              "-o",
              "a.o",
              "-x",
              "c",
              "a.c",
              "-faddrsig"};
  EXPECT_EQ(
      filterCC1Args(Stored),
      (Args{"-triple", "x86_64-pc-linux-gnu", "-emit-obj", "-main-file-name",
            "a.c", "-Oz", "-mllvm", "-inline-threshold=5", "-faddrsig"}));
}

TEST(CompileCommandTest, BuildsTheReplayCommand) {
  CompileRequest R;
  R.CC1Args = {"-triple", "x86_64-pc-linux-gnu", "-emit-obj", "-Oz",
               "-fembed-bitcode=all"};
  R.BitcodePath = "corpus/m.o.bc";
  R.OutputPath = "out.o";
  R.ExtraArgs = {"-fpass-plugin=p.so", "-mllvm", "-mlgo-x"};
  EXPECT_EQ(buildCompileCommand(R),
            (Args{"clang-19", "-cc1", "-triple", "x86_64-pc-linux-gnu",
                  "-emit-obj", "-Oz", "-fpass-plugin=p.so", "-mllvm", "-mlgo-x",
                  "-x", "ir", "corpus/m.o.bc", "-o", "out.o"}));
}

TEST(CompileCommandTest, ShellQuotes) {
  EXPECT_EQ(shellQuote({"clang-19", "-DX=a b", "it's"}),
            "clang-19 '-DX=a b' 'it'\\''s'");
}

TEST(RunCommandTest, ReportsExitCodeAndStandardError) {
  EXPECT_EQ(toString(runCommand(Args{"true"})), "");
  EXPECT_EQ(toString(runCommand(Args{"sh", "-c", "echo oops >&2; exit 3"})),
            "sh exited with status 3:\noops\n");
  EXPECT_EQ(toString(runCommand(Args{"sh", "-c", "exit 4"})),
            "sh exited with status 4");
  EXPECT_EQ(toString(runCommand(Args{"mlgo-no-such-program"})),
            "cannot find 'mlgo-no-such-program' in PATH");
}

// A crash names the signal (it said "crashed (Segmentation fault)"), and an
// exit status of 127 - a shell's "command not found" - is an exit status,
// not a crash "(No such file or directory)".
TEST(RunCommandTest, NamesTheSignalOfACrash) {
  EXPECT_EQ(
      toString(runCommand(Args{"sh", "-c", "echo dying >&2; kill -SEGV $$"})),
      "sh was killed by signal 11 (Segmentation fault):\ndying\n");
  EXPECT_EQ(toString(runCommand(Args{"sh", "-c", "echo gone >&2; exit 127"})),
            "sh exited with status 127:\ngone\n");
}

TEST(RunCommandTest, KeepsTheFirst2000BytesOfStandardError) {
  std::string Error = toString(runCommand(
      Args{"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x >&2; exit 1"}));
  EXPECT_EQ(Error, "sh exited with status 1:\n" + std::string(2000, 'x'));
}

// ExecuteAndWait's timeout, an alarm(2) signal, fails here: the signal
// reaches one thread only (or another thread entirely), and the other
// wait runs the full 30 s and reports success, not the timeout. Polling
// with sys::Wait(PI, 0) instead still went through alarm(2): each poll
// called alarm(0) and installed LLVM's SIGALRM handler, so an alarm pending
// in the process (a watchdog, another thread's ExecuteAndWait timeout) was
// cancelled by any compile running in the pool.
TEST(RunCommandTest, TimesOutInEveryThreadOfAPool) {
  struct sigaction Mine, Previous, Seen;
  std::memset(&Mine, 0, sizeof(Mine));
  Mine.sa_handler = [](int) {};
  sigemptyset(&Mine.sa_mask);
  ASSERT_EQ(::sigaction(SIGALRM, &Mine, &Previous), 0);
  ::alarm(1000);
  std::string Errors[3];
  {
    DefaultThreadPool Pool(hardware_concurrency(3));
    for (std::string &E : Errors)
      Pool.async([&E] { E = toString(runCommand(Args{"sleep", "30"}, 1)); });
    Pool.wait();
  }
  for (const std::string &E : Errors)
    EXPECT_EQ(E, "sleep timed out after 1 s");
  unsigned Left = ::alarm(0);
  ASSERT_EQ(::sigaction(SIGALRM, &Previous, &Seen), 0);
  EXPECT_GT(Left, 0u) << "the pending alarm was cancelled";
  EXPECT_EQ(Seen.sa_handler, Mine.sa_handler)
      << "SIGALRM's handler was replaced";
}

TEST(CorpusDescriptionTest, RoundTrips) {
  TempDir T;
  CorpusDescription D;
  D.Modules = {"a/x.c.o", "y.c.o"};
  D.HasThinLTO = false;
  D.GlobalCommandOverride = Args{"-cc1", "-Oz"};
  D.Extra["custom_key"] = 7;
  ASSERT_SUCCEEDED(D.write(T.path()));
  Expected<CorpusDescription> R = CorpusDescription::read(T.path());
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Modules, D.Modules);
  EXPECT_EQ(R->HasThinLTO, false);
  EXPECT_EQ(R->GlobalCommandOverride, D.GlobalCommandOverride);
  EXPECT_EQ(R->toJSON(), D.toJSON());
  // And byte for byte: writing what was read gives the same file.
  auto First = MemoryBuffer::getFile(T.sub("corpus_description.json"));
  ASSERT_TRUE(bool(First));
  std::string FirstText = (*First)->getBuffer().str();
  ASSERT_SUCCEEDED(R->write(T.path()));
  auto Second = MemoryBuffer::getFile(T.sub("corpus_description.json"));
  EXPECT_EQ((*Second)->getBuffer(), FirstText);
}

TEST(CorpusDescriptionTest, ReadsMlCompilerOptFormat) {
  Expected<CorpusDescription> D = CorpusDescription::parse(
      R"({"has_thinlto": false, "modules": ["a.o", "b/c.o"]})", "t.json");
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(D->Modules, (Args{"a.o", "b/c.o"}));
  EXPECT_FALSE(D->GlobalCommandOverride);
}

TEST(CorpusDescriptionTest, RejectsMalformedDescriptions) {
  EXPECT_EQ(errorMessage(CorpusDescription::parse(
                R"({"has_thinlto": 1, "modules": []})", "t.json")),
            "t.json: 'has_thinlto' is not a boolean");
  EXPECT_EQ(errorMessage(CorpusDescription::parse("{}", "t.json")),
            "t.json: no 'modules' array");
  EXPECT_EQ(errorMessage(CorpusDescription::parse(R"({"modules": ["a.o", 3]})",
                                                  "t.json")),
            "t.json: modules[1]: expected a string");
  EXPECT_EQ(errorMessage(CorpusDescription::parse(
                R"({"modules": [], "global_command_override": ["-Oz", {}]})",
                "t.json")),
            "t.json: global_command_override[1]: expected a string");
}

TEST(CorpusDescriptionTest, ModulesStayInsideTheCorpus) {
  for (const char *Bad : {"", "/etc/passwd", "../x.o", "a/../../x.o"})
    EXPECT_EQ(
        errorMessage(CorpusDescription::parse(
            (R"({"modules": ["a.o", ")" + std::string(Bad) + "\"]}").c_str(),
            "t.json")),
        "t.json: modules[1]: '" + std::string(Bad) +
            "' is not a relative path inside the corpus");
  // ".." inside a name is not a component.
  EXPECT_TRUE(bool(CorpusDescription::parse(
      R"({"modules": ["a..b.o", "x/..y/z.o", "./a.o"]})", "t.json")));
}

// "profiles" is optional: a description without it writes no such key (the
// bytes of an older corpus), one with it round-trips.
TEST(CorpusDescriptionTest, ProfilesAreOptionalAndRoundTrip) {
  Expected<CorpusDescription> Old =
      CorpusDescription::parse(R"({"modules": ["z/a.o"]})", "t.json");
  ASSERT_TRUE(bool(Old)) << toString(Old.takeError());
  EXPECT_TRUE(Old->Profiles.empty());
  EXPECT_EQ(formatv("{0}", Old->toJSON()).str(),
            R"({"has_thinlto":false,"modules":["z/a.o"]})");
  EXPECT_FALSE(Old->getProfilePath("/c", "z"));

  Expected<CorpusDescription> D = CorpusDescription::parse(
      R"({"modules": ["z/a.o"], "profiles": {"z": "profiles/z.profdata"}})",
      "t.json");
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(D->Profiles.at("z"), "profiles/z.profdata");
  EXPECT_EQ(*D->getProfilePath("/c", "z"), "/c/profiles/z.profdata");
  EXPECT_EQ(formatv("{0}", D->toJSON()).str(),
            R"({"has_thinlto":false,"modules":["z/a.o"],)"
            R"("profiles":{"z":"profiles/z.profdata"}})");
  EXPECT_EQ(
      errorMessage(CorpusDescription::parse(
          R"({"modules": [], "profiles": {"z": "../p.profdata"}})", "t.json")),
      "t.json: profiles.z: '../p.profdata' is not a relative path "
      "inside the corpus");
  EXPECT_EQ(errorMessage(CorpusDescription::parse(
                R"({"modules": [], "profiles": ["z"]})", "t.json")),
            "t.json: 'profiles' is not an object");
}

TEST(CombineTest, PrefixesModulesAndCopiesOutsideCorpora) {
  TempDir T;
  CorpusDescription A, B;
  A.Modules = {"x.c.o"};
  B.Modules = {"x.c.o", "sub/y.c.o"};
  makeCorpus(T.sub("a"), A);
  makeCorpus(T.sub("b"), B);
  Expected<CorpusDescription> C =
      combineCorpora({T.sub("a"), T.sub("b")}, T.sub("c"));
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(C->Modules, (Args{"a/x.c.o", "b/x.c.o", "b/sub/y.c.o"}));
  EXPECT_TRUE(sys::fs::exists(T.sub("c/b/sub/y.c.o.bc")));
  EXPECT_TRUE(sys::fs::exists(T.sub("c/b/sub/y.c.o.cmd")));
  Expected<CorpusDescription> Read = CorpusDescription::read(T.sub("c"));
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  EXPECT_EQ(Read->Modules, C->Modules);
}

TEST(CombineTest, CombinesInPlaceWhenInputsAreInsideTheOutput) {
  TempDir T;
  CorpusDescription A;
  A.Modules = {"x.c.o"};
  makeCorpus(T.sub("pkgs/zlib"), A);
  Expected<CorpusDescription> C =
      combineCorpora({T.sub("pkgs/zlib")}, T.path().str());
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(C->Modules, (Args{"pkgs/zlib/x.c.o"}));
  EXPECT_TRUE(sys::fs::exists(getModuleFile(T.path(), C->Modules[0], ".bc")));
}

TEST(CombineTest, RefusesCorporaWithDifferentSettings) {
  TempDir T;
  CorpusDescription A, B;
  A.Modules = {"x.c.o"};
  B.Modules = {"y.c.o"};
  B.HasThinLTO = true;
  makeCorpus(T.sub("a"), A);
  makeCorpus(T.sub("b"), B);
  EXPECT_EQ(errorMessage(combineCorpora({T.sub("a"), T.sub("b")}, T.sub("c"))),
            "cannot combine '" + T.sub("b") + "' with '" + T.sub("a") +
                "': they differ in 'has_thinlto' (true vs false); corpora "
                "may differ only in their modules");
  EXPECT_FALSE(sys::fs::exists(T.sub("c")));
}

TEST(CombineTest, RefusesAMissingModuleFile) {
  TempDir T;
  CorpusDescription A;
  A.Modules = {"x.c.o"};
  makeCorpus(T.sub("a"), A);
  sys::fs::remove(T.sub("a/x.c.o.cmd"));
  EXPECT_EQ(errorMessage(combineCorpora({T.sub("a")}, T.sub("c"))),
            "cannot combine: module file '" + T.sub("a/x.c.o.cmd") +
                "' is missing");
}

TEST(CompileCommandTest, ReplaysWithTheModuleCmdOrTheGlobalOverride) {
  TempDir T;
  CorpusDescription D;
  D.Modules = {"sub/m.c.o"};
  makeCorpus(T.path(), D);
  auto Argv = getModuleCompileCommand(T.path(), D, "sub/m.c.o", "out.o",
                                      {"-mllvm", "-x"});
  ASSERT_TRUE(bool(Argv)) << toString(Argv.takeError());
  std::string Bc = getModuleFile(T.path(), "sub/m.c.o", ".bc");
  EXPECT_EQ(*Argv, (Args{"clang-19", "-cc1", "-Oz", "-mllvm", "-x", "-x", "ir",
                         Bc, "-o", "out.o"}));
  D.GlobalCommandOverride = Args{"-triple", "x86_64-pc-linux-gnu", "-O2"};
  Argv = getModuleCompileCommand(T.path(), D, "sub/m.c.o", "out.o", {},
                                 "/usr/bin/clang-19");
  ASSERT_TRUE(bool(Argv)) << toString(Argv.takeError());
  EXPECT_EQ(*Argv,
            (Args{"/usr/bin/clang-19", "-cc1", "-triple", "x86_64-pc-linux-gnu",
                  "-O2", "-x", "ir", Bc, "-o", "out.o"}));
  EXPECT_EQ(
      errorMessage(getModuleCompileCommand(T.path(), D, "absent", "o")),
      ("module 'absent' is not in the corpus at '" + T.path() + "'").str());
}

TEST(ExtractTest, ReadsCompileCommands) {
  TempDir T;
  writeFile(T.sub("cc.json"), R"([
    {"directory": "/b", "file": "/s/a.c",
     "arguments": ["clang-19", "-c", "/s/a.c", "-o", "CMakeFiles/a.c.o"]},
    {"directory": "/b", "file": "/s/b.c",
     "command": "clang-19 -Oz -c -o /b/sub/b.o /s/b.c"},
    {"directory": "/b", "file": "/s/c.c",
     "command": "clang-19 -c /s/c.c -o /elsewhere/c.o"},
    {"directory": "/b", "file": "/s/a.c",
     "arguments": ["clang-19", "-c", "/s/a.c", "-o", "CMakeFiles/a.c.o"]},
    {"directory": "/b", "file": "/s/main.c",
     "arguments": ["clang-19", "/s/main.c", "-o", "main"]},
    {"directory": "/b", "file": "/s/d.c", "output": "/b/d.o",
     "arguments": ["clang-19", "-c", "/s/d.c"]}
  ])");
  std::vector<SkippedObject> Skipped;
  auto Objects = readCompileCommands(T.sub("cc.json"), Skipped);
  ASSERT_TRUE(bool(Objects)) << toString(Objects.takeError());
  ASSERT_EQ(Objects->size(), 4u);
  // By module name, not in the database's order.
  EXPECT_EQ((*Objects)[0].ObjectPath, "/b/CMakeFiles/a.c.o");
  EXPECT_EQ((*Objects)[0].ModuleName, "CMakeFiles/a.c.o");
  EXPECT_EQ((*Objects)[1].ModuleName, "d.o");
  EXPECT_EQ((*Objects)[2].ModuleName, "elsewhere/c.o");
  EXPECT_EQ((*Objects)[3].ModuleName, "sub/b.o");
  ASSERT_EQ(Skipped.size(), 1u);
  EXPECT_EQ(Skipped[0].Path, "/s/main.c");
  EXPECT_EQ(Skipped[0].Reason, SkipReason::NotACompile);
}

TEST(ExtractTest, RecordsTheSourceFileOfEachObject) {
  TempDir T;
  writeFile(T.sub("cc.json"), R"([
    {"directory": "/b/lib", "file": "x.c",
     "command": "clang-19 -c x.c -fPIC -o .libs/x.o"},
    {"directory": "/b/lib", "file": "../lib/./x.c",
     "command": "clang-19 -c ../lib/./x.c -o x.o"},
    {"directory": "/b", "file": "/s/y.c",
     "arguments": ["clang-19", "-c", "/s/y.c", "-o", "y.o"]}
  ])");
  std::vector<SkippedObject> Skipped;
  auto Objects = readCompileCommands(T.sub("cc.json"), Skipped);
  ASSERT_TRUE(bool(Objects)) << toString(Objects.takeError());
  ASSERT_EQ(Objects->size(), 3u);
  // Both spellings of one file give one source path: the duplicate key.
  EXPECT_EQ((*Objects)[0].SourcePath, "/b/lib/x.c");
  EXPECT_EQ((*Objects)[1].SourcePath, "/b/lib/x.c");
  EXPECT_EQ((*Objects)[2].SourcePath, "/s/y.c");
  EXPECT_TRUE(Skipped.empty());
  // A directory of objects has no compile commands, hence no sources.
  writeFile(T.sub("objs/a.o"), "");
  auto Found = findObjects(T.sub("objs"));
  ASSERT_TRUE(bool(Found)) << toString(Found.takeError());
  ASSERT_EQ(Found->size(), 1u);
  EXPECT_EQ((*Found)[0].SourcePath, "");
}

TEST(ExtractTest, NamesModulesRelativeToTheBaseDirectory) {
  TempDir T;
  std::string P = T.sub("p");
  ASSERT_FALSE(sys::fs::create_directories(P));
  writeFile(T.sub("cc.json"), (R"([
    {"directory": ")" + P + R"(/src", "file": "sds.c",
     "command": "clang-19 -c sds.c -o sds.o"},
    {"directory": ")" + P + R"(/deps/hiredis", "file": "sds.c",
     "command": "clang-19 -c sds.c -o sds.o"},
    {"directory": "/elsewhere", "file": "x.c",
     "command": "clang-19 -c x.c -o x.o"}
  ])"));
  std::vector<SkippedObject> Skipped;
  auto Objects = readCompileCommands(T.sub("cc.json"), Skipped, P);
  ASSERT_TRUE(bool(Objects)) << toString(Objects.takeError());
  ASSERT_EQ(Objects->size(), 3u);
  EXPECT_EQ((*Objects)[0].ModuleName, "deps/hiredis/sds.o");
  EXPECT_EQ((*Objects)[1].ModuleName, "src/sds.o");
  // Outside the base directory: relative to the entry's directory.
  EXPECT_EQ((*Objects)[2].ModuleName, "x.o");
  EXPECT_TRUE(Skipped.empty());
  // A relative base directory is relative to the working directory.
  SmallString<256> Cwd;
  ASSERT_FALSE(sys::fs::current_path(Cwd));
  ASSERT_FALSE(sys::fs::set_current_path(T.path()));
  Objects = readCompileCommands(T.sub("cc.json"), Skipped, "p");
  ASSERT_FALSE(sys::fs::set_current_path(Cwd));
  ASSERT_TRUE(bool(Objects)) << toString(Objects.takeError());
  EXPECT_EQ((*Objects)[0].ModuleName, "deps/hiredis/sds.o");
  // Without a base directory the two sds.o collide; whatever the order of
  // the database, the first by path is kept and the other reported.
  Skipped.clear();
  Objects = readCompileCommands(T.sub("cc.json"), Skipped);
  ASSERT_TRUE(bool(Objects)) << toString(Objects.takeError());
  EXPECT_EQ(Objects->size(), 2u);
  ASSERT_EQ(Skipped.size(), 1u);
  EXPECT_EQ(Skipped[0].Reason, SkipReason::Duplicate);
  EXPECT_EQ(Skipped[0].Path, P + "/src/sds.o");
  EXPECT_EQ((*Objects)[0].ObjectPath, P + "/deps/hiredis/sds.o");
  writeFile(T.sub("reversed.json"), (R"([
    {"directory": "/elsewhere", "file": "x.c",
     "command": "clang-19 -c x.c -o x.o"},
    {"directory": ")" + P + R"(/deps/hiredis", "file": "sds.c",
     "command": "clang-19 -c sds.c -o sds.o"},
    {"directory": ")" + P + R"(/src", "file": "sds.c",
     "command": "clang-19 -c sds.c -o sds.o"}
  ])"));
  Skipped.clear();
  auto Reversed = readCompileCommands(T.sub("reversed.json"), Skipped);
  ASSERT_TRUE(bool(Reversed)) << toString(Reversed.takeError());
  ASSERT_EQ(Reversed->size(), 2u);
  EXPECT_EQ((*Reversed)[0].ObjectPath, P + "/deps/hiredis/sds.o");
  EXPECT_EQ((*Reversed)[1].ObjectPath, "/elsewhere/x.o");
  ASSERT_EQ(Skipped.size(), 1u);
  EXPECT_EQ(Skipped[0].Path, P + "/src/sds.o");
}

// A base directory that is not there, or below which no object lies,
// names nothing: an error, not a silently ignored option.
TEST(ExtractTest, RefusesABaseDirectoryThatNamesNothing) {
  TempDir T;
  writeFile(T.sub("cc.json"), R"([
    {"directory": "/b", "file": "x.c", "command": "clang-19 -c x.c -o x.o"}
  ])");
  ASSERT_FALSE(sys::fs::create_directories(T.sub("empty")));
  std::vector<SkippedObject> Skipped;
  EXPECT_EQ(
      toString(readCompileCommands(T.sub("cc.json"), Skipped, T.sub("missing"))
                   .takeError()),
      "--base-dir '" + T.sub("missing") + "': no such directory");
  EXPECT_EQ(
      toString(readCompileCommands(T.sub("cc.json"), Skipped, T.sub("empty"))
                   .takeError()),
      "--base-dir '" + T.sub("empty") + "': none of the 1 objects of " +
          T.sub("cc.json") + " lies below " + T.sub("empty"));
}

TEST(ExtractTest, DescribesDroppedModules) {
  EXPECT_EQ(describeDroppedModule({"x.o", "/b/x.o", DropReason::SameSource,
                                   ".libs/x.o", "/b/x.c"}),
            "x.o: same source file as .libs/x.o (/b/x.c)");
  EXPECT_EQ(describeDroppedModule(
                {"b/a.o", "/o/b/a.o", DropReason::IdenticalBitcode, "a.o", ""}),
            "b/a.o: identical bitcode to a.o");
  EXPECT_EQ(getDropReasonName(DropReason::SameSource), "same source file");
  EXPECT_EQ(getDropReasonName(DropReason::IdenticalBitcode),
            "identical bitcode");
}

TEST(ExtractTest, CombinedReportsPrefixDroppedModules) {
  TempDir T;
  writeFile(T.sub("p/extraction_report.json"), R"({
    "modules": [{"module": ".libs/x.o", "object": "/b/.libs/x.o",
                 "text_size": 10, "bitcode_size": 20}],
    "skipped": [],
    "dropped": [{"module": "x.o", "object": "/b/x.o",
                 "reason": "same source file", "kept_module": ".libs/x.o",
                 "source": "/b/x.c"}]})");
  auto Merged = combineExtractionReports({T.sub("p")}, {"pkg"}, T.sub("out"));
  ASSERT_TRUE(bool(Merged)) << toString(Merged.takeError());
  EXPECT_TRUE(*Merged);
  auto Buf = MemoryBuffer::getFile(T.sub("out/extraction_report.json"));
  ASSERT_TRUE(bool(Buf));
  StringRef Text = (*Buf)->getBuffer();
  EXPECT_NE(Text.find(R"("kept_module": "pkg/.libs/x.o")"), StringRef::npos)
      << Text.str();
  EXPECT_NE(Text.find(R"("module": "pkg/x.o")"), StringRef::npos) << Text.str();
  auto Modules = readExtractionReport(T.sub("out"));
  ASSERT_TRUE(bool(Modules)) << toString(Modules.takeError());
  ASSERT_EQ(Modules->size(), 1u);
  EXPECT_EQ((*Modules)[0].Module, "pkg/.libs/x.o");
}

TEST(ExtractTest, ReportsAnObjectThatIsNotOne) {
  TempDir T;
  writeFile(T.sub("junk.o"), "not an object");
  SkipReason Reason = SkipReason::NoBitcode;
  EXPECT_NE(errorMessage(readEmbeddedModule(T.sub("junk.o"), Reason)),
            "<success>");
  EXPECT_EQ(Reason, SkipReason::UnreadableObject);
  EXPECT_EQ(errorMessage(readEmbeddedModule(T.sub("absent.o"), Reason)),
            T.sub("absent.o") + ": no such file");
  EXPECT_EQ(Reason, SkipReason::MissingObject);
}

} // namespace

# lit configuration for mlgo's tool tests. Tests run the real LLVM 19 tools
# (opt, llc, clang, FileCheck from /usr/lib/llvm-19/bin, first on PATH) and
# the freshly built mlgo binary and plugin.
import os
import shutil

import lit.formats

config.name = "mlgo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".c", ".cpp", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlgo_obj_root, "test")

path = os.pathsep.join([os.path.join(config.mlgo_obj_root, "bin"),
                        config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
for var in ["HOME", "TMPDIR", "LANG"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# A sanitizer build (-DMLGO_SANITIZE=ON): the plugin runs inside the stock,
# uninstrumented opt-19 and clang-19, so AddressSanitizer's runtime is
# preloaded into every program a test runs. Leak checking is off here: clang
# leaks on purpose (-disable-free) and so do the shell tools; mlgo's own
# leaks are checked by the unit tests, which run with it on.
if config.mlgo_preload:
    config.environment["LD_PRELOAD"] = config.mlgo_preload
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    # Tests of memory bounds state RSS limits for an uninstrumented mlgo.
    config.available_features.add("asan")

# A build with MPI (-DMLGO_MPI=ON) runs the tests of compiles on ranks
# (test/Distributed) with this machine's mpirun, more ranks than cores
# allowed, and no rank bound to a core (Open MPI binds two ranks or fewer,
# and a polling rank 0 bound next to its one worker waits for that core's
# other tenants at every job: docs/distributed.md). Open MPI refuses to run as root unless told to; CI containers run
# as root, and the variables only say that this is intended.
# A site configuration without them (scripts/check-install.sh's, for the
# installed tree) runs no MPI test.
mlgo_mpi = getattr(config, "mlgo_mpi", "")
mlgo_mpiexec = getattr(config, "mlgo_mpiexec", "")
if mlgo_mpi in ("ON", "1", "TRUE", "YES") and mlgo_mpiexec:
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", mlgo_mpiexec + " --oversubscribe --bind-to none"))
    if os.geteuid() == 0:
        config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

# BOLT (scripts/setup.sh installs Debian's bolt-19 and libbolt-19-dev): the
# tests of `mlgo eval --bolt` need llvm-bolt-19, merge-fdata-19 and the
# instrumentation runtime in the lib/ beside llvm-bolt-19's real binary.
mlgo_bolt = shutil.which("llvm-bolt-19")
if mlgo_bolt and shutil.which("merge-fdata-19"):
    bolt_lib = os.path.join(os.path.dirname(os.path.realpath(mlgo_bolt)),
                            "..", "lib", "libbolt_rt_instr.a")
    if os.path.exists(bolt_lib):
        config.available_features.add("bolt")

config.substitutions.append(("%mlgo_src", config.mlgo_src_root))
config.substitutions.append(("%mlgo_obj", config.mlgo_obj_root))
config.substitutions.append(("%plugin", config.mlgo_plugin))
config.substitutions.append(("%python", "python3"))

"""InliningEnv(reward='speed') on a profiled corpus: the reward is `mlgo
speed cost --profile`'s profile-weighted executed instructions of the
module's object, stock clang's minus the episode's, exactly."""
import json
import os
import shutil
import subprocess

import pytest

import mlgo
from conftest import SOURCE, run

MODULE = "prog/speed-inline.o"
ADDRESS_MAP = ["-fbasic-block-address-map", "-mllvm",
               "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"]


@pytest.fixture(scope="module")
def profiled(tmp_path_factory, mlgo_bin):
    """A corpus of two packages: 'prog' (test/Tune/Inputs/speed-inline.c,
    whose hot loop calls a function LLVM's -O2 inliner keeps out of line),
    profiled on its own run, and 'plain' (test/Train/Inputs/beta/stats.c)
    without a profile. Built as make-speed-inline-corpus.sh builds it: by
    relative names in src/, -O2 with the bitcode before optimization."""
    out = tmp_path_factory.mktemp("speed")
    src = out / "src"
    src.mkdir()
    for f in ("test/Tune/Inputs/speed-inline.c",
              "test/Train/Inputs/beta/stats.c"):
        shutil.copy(os.path.join(SOURCE, f), src)
    for pkg in ("prog", "plain"):
        (out / "objs" / pkg).mkdir(parents=True)
    run("clang-19", "-O2", "-fprofile-generate", "speed-inline.c", "-o",
        "../inst", cwd=src)
    run(mlgo_bin, "profile", "run", "-o", "../p.profdata", "--", "../inst",
        cwd=src)
    for pkg, f in (("prog", "speed-inline"), ("plain", "stats")):
        run("clang-19", "-c", "-O2", "-Xclang", "-fembed-bitcode=all",
            f + ".c", "-o", f"../objs/{pkg}/{f}.o", cwd=src)
    run(mlgo_bin, "corpus", "extract", "--objects", str(out / "objs"),
        "--output", str(out / "corpus"))
    run(mlgo_bin, "corpus", "profile", str(out / "corpus"), "--package",
        "prog", "--profile", str(out / "p.profdata"))
    return out


def speed_cost(mlgo_bin, obj, profile=None):
    """`mlgo speed cost OBJ --json`'s totals (with `--profile P`: also
    checked against the profile)."""
    check = ["--profile", str(profile)] if profile else []
    out, _ = run(mlgo_bin, "speed", "cost", str(obj), *check, "--json")
    d = json.loads(out)
    return d["instructions"], d["cycles"]


def play(env, pick):
    obs, info = env.reset(options={"module": MODULE})
    while True:
        obs, reward, term, _, info = env.step(pick(obs))
        if term:
            return reward, info


def test_speed_reward_is_mlgo_speed_cost(profiled, mlgo_bin, tmp_path):
    profile = profiled / "p.profdata"
    src = profiled / "src"
    # LLVM's decisions: stock clang-19 -O2 -fprofile-use of the source.
    run("clang-19", "-O2", "-fprofile-use=" + str(profile), *ADDRESS_MAP,
        "-c", "speed-inline.c", "-o", str(tmp_path / "stock.o"), cwd=src)
    stock = speed_cost(mlgo_bin, tmp_path / "stock.o", profile)
    env = mlgo.InliningEnv(profiled / "corpus", packages=["prog"],
                           reward="speed", include_default=True)
    with env:
        assert env.corpus[MODULE].profile == str(
            profiled / "corpus/profiles/prog.profdata")
        rewards = {}
        for name, pick in (("never", lambda o: 0), ("always", lambda o: 1),
                           ("llvm", lambda o: int(o["inlining_default"][0]))):
            reward, info = play(env, pick)
            rewards[name] = reward
            assert info["sites"] == [("main", "step", 0)]
            assert (info["baseline_cost"], info["baseline_cycles"]) == stock
            assert reward == info["baseline_cost"] - info["cost"]
            # The episode's object, rebuilt from its exported decisions
            # (a file for speed: the module is -O2), costed by mlgo.
            d = env.export_decisions(tmp_path / f"{name}.txt")
            assert "meta objective speed\n" in open(d).read()
            plugin = env.plugin
            obj = tmp_path / f"{name}.o"
            run("clang-19", "-O2", "-fprofile-use=" + str(profile),
                *ADDRESS_MAP, "-fpass-plugin=" + plugin, "-Xclang", "-load",
                "-Xclang", plugin, "-mllvm", f"-mlgo-decisions={d}", "-c",
                "speed-inline.c", "-o", str(obj), cwd=src)
            # Where `step` is inlined everywhere, LLVM moves its entry
            # count to main and `step` keeps 0: `--profile`'s check knows
            # no call reaches it (test/Speed/profile-inlined-everywhere).
            assert (info["cost"], info["cycles"]) == speed_cost(
                mlgo_bin, obj, profile)
            assert info["text_size"] == mlgo.code_size(str(obj))[0]
        # LLVM keeps `step` out of line, and so does the never policy:
        # both are stock's cost; inlining it saves executed instructions.
        assert rewards["llvm"] == 0.0 and rewards["never"] == 0.0
        assert rewards["always"] > 0


def test_speed_reward_needs_profiles(profiled):
    corpus = str(profiled / "corpus")
    hint = ("; `mlgo corpus profile CORPUS --package NAME --profile "
            "P.profdata` adds one (docs/speed.md)")
    with pytest.raises(ValueError) as e:
        mlgo.InliningEnv(corpus, reward="speed")
    assert str(e.value) == (
        f"InliningEnv: reward 'speed' needs a profile of each package "
        f"played, and {corpus} has none for 'plain' (it has one for 'prog': "
        f"packages=[...] chooses them)" + hint)
    with pytest.raises(ValueError) as e:
        mlgo.InliningEnv(corpus, packages=["plain"], reward="speed")
    assert str(e.value) == (
        f"InliningEnv: reward 'speed' needs a profile of each package "
        f"played, and {corpus} has none for 'plain'" + hint)


def test_module_the_workload_never_ran_has_no_speed_episode(
        profiled, mlgo_bin, tmp_path):
    # plain given prog's profile, which knows none of its functions: a
    # package build applies it (they are cold), and every policy costs 0.
    corpus = tmp_path / "corpus"
    shutil.copytree(profiled / "corpus", corpus)
    run(mlgo_bin, "corpus", "profile", str(corpus), "--package", "plain",
        "--profile", str(profiled / "p.profdata"))
    with mlgo.InliningEnv(corpus, reward="speed", seed=3) as env:
        with pytest.raises(ValueError) as e:
            env.reset(options={"module": "plain/stats.o"})
        assert str(e.value) == (
            f"InliningEnv: plain/stats.o: no function of the module has a "
            f"count in its package's profile {corpus}/profiles/plain.profdata "
            f"(the workload never ran it): no speed reward to play for")
        # reset() passes over it, as over modules without decisions.
        _, info = env.reset()
        assert info["module"] == MODULE
        assert info["skipped"] in ([], ["plain/stats.o"])
        _, info = env.reset()
        assert info["module"] == MODULE

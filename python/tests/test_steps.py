"""What InliningEnv says about each step beside the features: the call
site (info['call_site']), the IR statistics of its caller and callee
(ir_stats=True), IR2Native's predicted size delta (reward='ir2native'),
and the compiler's own message when it fails (CompilerExitError)."""
import os
import stat

import numpy as np
import pytest

import mlgo
from conftest import SOURCE, run

from test_envs import ALWAYS


@pytest.fixture(scope="module")
def calls_corpus(tmp_path_factory, mlgo_bin):
    """A one-module corpus of test/Serve/Inputs/calls.c, small enough to
    know every step by reading the source: entry() calls three static
    functions, each storing to a volatile twice."""
    out = tmp_path_factory.mktemp("calls")
    (out / "objs" / "calls").mkdir(parents=True)
    run("clang-19", "-c", "-Oz", "-Xclang", "-fembed-bitcode=all",
        os.path.join(SOURCE, "test/Serve/Inputs/calls.c"),
        "-o", str(out / "objs" / "calls" / "calls.o"))
    run(mlgo_bin, "corpus", "extract", "--objects", str(out / "objs"),
        "--output", str(out / "corpus"))
    return str(out / "corpus")


def walk(env, module, action):
    """(observations, infos of every observation, rewards, final info)."""
    obs, info = env.reset(options={"module": module})
    observations, infos, rewards = [obs], [info], []
    while True:
        obs, reward, term, _, info = env.step(action)
        rewards.append(reward)
        if term:
            return observations, infos, rewards, info
        observations.append(obs)
        infos.append(info)


def test_call_site_of_each_step_is_the_plugins_site(tiny_corpus):
    # info['call_site'] comes from the step info file before each
    # observation; info['sites'] from the .sites file the plugin writes
    # when the module ends: two paths, one answer, in the same order.
    with mlgo.InliningEnv(tiny_corpus) as env:
        for module in ALWAYS:
            for action in (0, 1):
                _, infos, _, end = walk(env, module, action)
                assert [i["call_site"] for i in infos] == end["sites"]
                assert len(infos) == end["decisions"]
                assert "call_site" not in end


def test_call_sites_of_calls_c_exactly(calls_corpus):
    # entry() calls a, b and c once each, in that order; the inliner asks
    # about them in that order whatever the decisions.
    with mlgo.InliningEnv(calls_corpus) as env:
        for action in (0, 1):
            _, infos, _, end = walk(env, "calls/calls.o", action)
            sites = [("entry", "a", 0), ("entry", "b", 0),
                     ("entry", "c", 0)]
            assert [i["call_site"] for i in infos] == sites
            assert end["sites"] == sites
            assert [i["decision"] for i in infos] == [0, 1, 2]


def named(stats):
    """{feature: count} of an IR statistics vector, zeros left out."""
    return {n: int(v) for n, v in zip(mlgo.InliningEnv.IR_STAT_NAMES, stats)
            if v != 0}


def test_ir_stats_of_calls_c_exactly(calls_corpus):
    # Counted from the source, at -Oz when the inliner asks: entry() is
    # three calls and a return, the last call a tail call; a() is a
    # volatile store of x, a multiplication, a volatile store of the
    # product and a return (two operands naming the global Sink).
    # tti_code_size is x86-64's TCK_CodeSize sum: 2 for a call of one
    # argument, 1 for every other instruction here.
    callee = {"tti_code_size": 4, "instructions": 4, "basic_blocks": 1,
              "arguments": 1, "is_local": 1, "global_operands": 2,
              "op_ret": 1, "op_mul": 1, "op_store": 2}
    entry = {"tti_code_size": 7, "instructions": 4, "basic_blocks": 1,
             "calls": 3, "call_arguments": 3, "tail_calls": 1,
             "arguments": 1, "op_ret": 1, "op_call": 3}
    with mlgo.InliningEnv(calls_corpus, ir_stats=True) as env:
        observations, _, _, _ = walk(env, "calls/calls.o", 0)
        assert len(observations) == 3
        for k, obs in enumerate(observations):
            # Declined: entry() stays as it was; b() and c() are a() with
            # an addition more (x + 1, x + 2).
            assert named(obs["caller_ir_stats"]) == entry, k
            more = {} if k == 0 else {"tti_code_size": 5,
                                      "instructions": 5, "op_add": 1}
            assert named(obs["callee_ir_stats"]) == dict(callee, **more), k
        observations, _, _, _ = walk(env, "calls/calls.o", 1)
        # Inlined: a()'s body replaces its call (and a() is deleted), then
        # b()'s replaces its call.
        after_a = {"tti_code_size": 8, "instructions": 6, "basic_blocks": 1,
                   "calls": 2, "call_arguments": 2, "tail_calls": 1,
                   "arguments": 1, "global_operands": 2, "op_ret": 1,
                   "op_call": 2, "op_mul": 1, "op_store": 2}
        after_b = dict(after_a, tti_code_size=10, instructions=9, calls=1,
                       call_arguments=1, global_operands=4, op_call=1,
                       op_mul=2, op_store=4, op_add=1)
        assert [named(o["caller_ir_stats"]) for o in observations] == [
            entry, after_a, after_b]
        # By LLVM's opcode classes: stores are memory, mul and add binary.
        counts = mlgo.InliningEnv.opcode_class_counts
        zero = dict.fromkeys(mlgo.InliningEnv.IR_OPCODE_CLASSES, 0)
        assert counts(observations[2]["caller_ir_stats"]) == dict(
            zero, terminator=1, binary=3, memory=4, other=1)
        assert counts(observations[2]["callee_ir_stats"]) == dict(
            zero, terminator=1, binary=2, memory=2)


def test_opcode_classes_partition_the_counted_opcodes():
    names = mlgo.InliningEnv.IR_STAT_NAMES
    classes = mlgo.InliningEnv.IR_OPCODE_CLASSES
    assert list(classes) == ["terminator", "unary", "binary", "bitwise",
                             "memory", "cast", "other"]
    assert classes["terminator"] == (
        "op_ret", "op_br", "op_switch", "op_indirectbr", "op_invoke",
        "op_resume", "op_unreachable")
    assert classes["memory"] == (
        "op_alloca", "op_load", "op_store", "op_getelementptr", "op_fence",
        "op_cmpxchg", "op_atomicrmw")
    assert classes["other"][-1] == "op_freeze"
    ops = [n for n in names if n.startswith("op_")]
    assert [n for c in classes.values() for n in c] == ops


def test_ir2native_reward_is_the_models_prediction(calls_corpus):
    # The dense reward, recomputed in Python from the observed IR
    # statistics with the model the plugin embeds (models/ir2native,
    # evaluated by mlgo's interpreter, which the embedded code matches
    # bit for bit): the caller's predicted size before the decision, plus
    # the inlined and deleted callee's, minus the caller's after it (the
    # next observation's caller: the inliner asks about entry()'s next
    # call site right away). float32 arithmetic, as the plugin's.
    model = mlgo.Model.load(os.path.join(SOURCE, "models/ir2native/"
                                         "model.json"))
    names = mlgo.InliningEnv.IR_STAT_NAMES

    def predicted(stats):
        batch = {n: np.array([[v]], dtype=np.int64)
                 for n, v in zip(names, stats)}
        return np.float32(model.logits(batch)[0])

    with mlgo.InliningEnv(calls_corpus, ir_stats=True,
                          reward="ir2native") as env:
        observations, _, rewards, end = walk(env, "calls/calls.o", 1)
        assert len(rewards) == 3 and end["predicted_delta"] == rewards[2]
        for k in (0, 1):
            before, after = observations[k], observations[k + 1]
            want = (predicted(before["caller_ir_stats"]) +
                    predicted(before["callee_ir_stats"]) -
                    predicted(after["caller_ir_stats"]))
            assert rewards[k] == float(want), k
            # A few bytes saved: a call and a function's frame.
            assert 0 < rewards[k] < 64, k
        _, _, rewards, _ = walk(env, "calls/calls.o", 0)
        assert rewards == [0.0, 0.0, 0.0]


def test_ir_stats_of_caller_and_callee(tiny_corpus):
    names = mlgo.InliningEnv.IR_STAT_NAMES
    assert names[:3] == ("tti_code_size", "instructions", "basic_blocks")
    ops = [k for k, n in enumerate(names) if n.startswith("op_")]
    with mlgo.InliningEnv(tiny_corpus, ir_stats=True) as env:
        space = env.observation_space
        assert space["caller_ir_stats"].shape == (len(names),)
        for module in ALWAYS:
            observations, _, _, _ = walk(env, module, 1)
            for obs in observations:
                assert obs in space
                for who in ("caller", "callee"):
                    stats = obs[f"{who}_ir_stats"]
                    assert stats.dtype == np.int64
                    # LLVM's own count of the same function's blocks, in
                    # the same observation.
                    assert stats[2] == obs[f"{who}_basic_block_count"][0]
                    # C code uses only opcodes the table counts.
                    assert stats[ops].sum() == stats[1]
                    assert sum(mlgo.InliningEnv.opcode_class_counts(
                        stats).values()) == stats[1]
    # The vector form carries them too, after the stream's features.
    with mlgo.InliningEnv(tiny_corpus, ir_stats=True,
                          observation="vector") as env:
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        assert obs.shape == (44 + 2 * len(names),)
    with mlgo.InliningEnv(tiny_corpus) as env:
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        assert "caller_ir_stats" not in obs


def test_ir2native_reward_is_the_logged_delta(tiny_corpus):
    # Dense: each step's reward is the decision's predicted delta, which
    # the plugin also logs as the training log's score (binary, float32).
    with mlgo.InliningEnv(tiny_corpus, reward="ir2native") as env:
        for module in ALWAYS:
            for action in (0, 1):
                _, _, rewards, end = walk(env, module, action)
                log = mlgo.read_log(os.path.join(env._tmp.name,
                                                 "episode.log"))
                scores = log.contexts[0].rewards.reshape(-1)
                assert rewards == [float(v) for v in scores], module
                if action == 0:
                    assert rewards == [0.0] * len(rewards)
                else:
                    assert any(r != 0 for r in rewards)
                # The final sizes are still there to compare.
                assert end["text_size"] > 0


def test_compiler_exit_carries_its_stderr(tiny_corpus, tmp_path):
    # A clang that fails when it is asked to open the channel, as a real
    # one does on a bad option, with a message of its own.
    fake = tmp_path / "clang-fails"
    fake.write_text(
        "#!/bin/sh\n"
        "case \"$*\" in *interactive-channel-base*)\n"
        "  echo 'warning: first line' >&2\n"
        "  echo 'error: injected failure of the episode' >&2; exit 3;;\n"
        "esac\n"
        "exec clang-19 \"$@\"\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    with mlgo.InliningEnv(tiny_corpus, clang=str(fake)) as env:
        with pytest.raises(mlgo.CompilerExitError) as e:
            env.reset(options={"module": "alpha/text.o"})
    tail = "warning: first line\nerror: injected failure of the episode"
    assert e.value.stderr == tail
    assert str(e.value) == (
        "InliningEnv: alpha/text.o: command exited with status 3 without "
        "ever opening the channel; is interactive ML advice enabled on its "
        "command line (e.g. opt -enable-ml-inliner=release "
        "-inliner-interactive-channel-base={channel})?:\n" + tail)
    assert isinstance(e.value, mlgo.EnvError)


def test_vector_envs_carry_the_step_info(tiny_corpus):
    # Each environment's call sites, step by step (the autoreset step gives
    # the next episode's first), are its episode's sites at the end; the
    # dense reward is the step's predicted_delta; the IR statistics are
    # batched. The same in both vector environments.
    played = []
    for cls in (mlgo.VectorInliningEnv, mlgo.AsyncVectorInliningEnv):
        with cls(tiny_corpus, num_envs=2, seed=3, ir_stats=True,
                 reward="ir2native") as venv:
            obs, infos = venv.reset()
            sites = [[infos["call_site"][i]] for i in range(2)]
            ends, log = 0, []
            for _ in range(12):
                obs, rewards, terms, _, infos = venv.step(
                    np.ones(2, dtype=np.int64))
                assert obs["caller_ir_stats"].shape == (2, 79)
                for i in range(2):
                    if infos["_predicted_delta"][i]:
                        assert rewards[i] == infos["predicted_delta"][i]
                    else:  # the autoreset step
                        assert rewards[i] == 0.0
                    if terms[i]:
                        assert infos["sites"][i] == sites[i], i
                        log.append((infos["module"][i], sites[i]))
                        ends += 1
                        sites[i] = []
                    else:
                        sites[i].append(infos["call_site"][i])
                log.append(list(rewards))
            assert ends >= 2
            played.append(log)
    assert played[0] == played[1]


def test_replayed_prefix_gives_the_steps_info(calls_corpus):
    # reset(options={'actions': ...}) ends where stepping by hand does:
    # the same pending call site, IR statistics and last reward.
    with mlgo.InliningEnv(calls_corpus, ir_stats=True,
                          reward="ir2native") as env:
        observations, infos, rewards, _ = walk(env, "calls/calls.o", 1)
        for k in (1, 2):
            obs, info = env.reset(options={"module": "calls/calls.o",
                                           "actions": [1] * k})
            assert info["call_site"] == infos[k]["call_site"]
            assert info["decision"] == k
            assert info["predicted_delta"] == rewards[k - 1]
            for name in ("caller_ir_stats", "callee_ir_stats"):
                assert obs[name].tobytes() == \
                    observations[k][name].tobytes()

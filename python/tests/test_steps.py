"""What InliningEnv says about each step beside the features: the call
site (info['call_site']), the IR statistics of its caller and callee
(ir_stats=True), IR2Native's predicted size delta (reward='ir2native'),
and the compiler's own message when it fails (CompilerExitError)."""
import os
import stat

import numpy as np
import pytest

import mlgo

from test_envs import ALWAYS


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

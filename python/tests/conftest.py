"""Shared fixtures: the build's mlgo, and the tiny corpus of test/Train
(alpha: 2 modules, beta: 1), built once per session by
test/Train/Inputs/make-corpus.sh."""
import os
import subprocess

import pytest

import mlgo

SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def mlgo_bin():
    return mlgo.mlgo_program()


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory, mlgo_bin):
    out = tmp_path_factory.mktemp("tiny")
    env = dict(os.environ, PATH=os.path.dirname(mlgo_bin) + ":" +
               os.environ["PATH"])
    subprocess.run(["sh", os.path.join(SOURCE, "test/Train/Inputs/make-corpus.sh"),
                    str(out)], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return str(out / "corpus")


def run(*argv, **kw):
    """Runs a command; returns its stdout (text). Fails the test with its
    stderr when it fails."""
    r = subprocess.run(list(argv), capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{argv}: {r.stderr}"
    return r.stdout, r.stderr

"""The PPO example (python/examples/ppo_inline.py) end to end on the tiny
corpus: trains, exports a model mlgo accepts, evaluates it."""
import json
import os
import subprocess
import sys

import mlgo
from conftest import SOURCE

EXAMPLE = os.path.join(SOURCE, "python/examples/ppo_inline.py")


def test_ppo_example_trains_exports_and_evaluates(tiny_corpus, tmp_path):
    out = tmp_path / "ppo"
    r = subprocess.run(
        [sys.executable, EXAMPLE, "--corpus", tiny_corpus, "--out", str(out),
         "--packages", "alpha,beta", "--iterations", "2", "--episodes", "4",
         "--seed", "3"],
        capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "iteration 2/2: " in r.stdout
    model = mlgo.Model.load(out / "model.json")
    assert model.name == "ppo-inline"
    names = [s.name for s in model.input_specs]
    assert "inlining_default" in names and len(names) == 45
    assert [l["activation"] for l in model.layers] == ["relu", "linear"]
    assert model.doc["metadata"]["seed"] == 3
    table = (out / "eval.md").read_text()
    assert table.startswith("| package | modules | -Oz | ppo-inline | delta |")
    assert "| TOTAL | 3 | 553 | " in table
    # The model decides like LLVM's heuristic where it starts: inline iff
    # inlining_default (the warm start), unless training moved it there.
    batch = {n: [[0]] * 2 for n in names}
    batch["inlining_default"] = [[0], [1]]
    assert model.decide(batch).tolist() == [0, 1]


def ppo(tiny_corpus, out, *extra):
    r = subprocess.run(
        [sys.executable, EXAMPLE, "--corpus", tiny_corpus, "--out", str(out),
         "--packages", "alpha", "--validation-packages", "beta",
         "--episodes", "3", "--seed", "4", *extra],
        capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_ppo_example_resumes_exactly_and_writes_its_curve(tiny_corpus,
                                                          tmp_path):
    whole, split = tmp_path / "whole", tmp_path / "split"
    ppo(tiny_corpus, whole, "--iterations", "2")
    out = ppo(tiny_corpus, split, "--iterations", "1")
    assert "iteration 1/1: " in out and "iteration 2/" not in out
    out = ppo(tiny_corpus, split, "--iterations", "2", "--resume")
    assert "resumed from " + str(split / "checkpoint.pt") + \
        " after iteration 1" in out
    assert "iteration 1/" not in out and "iteration 2/2: " in out
    # 1 iteration, then 1 more from the checkpoint: the bytes of 2.
    for name in ("model.json", "best-model.json", "curve.csv", "curve.svg"):
        assert (split / name).read_bytes() == (whole / name).read_bytes(), \
            name
    rows = [l.split(",") for l in
            (whole / "curve.csv").read_text().splitlines()]
    assert rows[0] == ["iteration", "episodes", "decisions", "train_reward",
                       "validation_Oz", "validation_policy",
                       "validation_saved"]
    assert [r[0] for r in rows[1:]] == ["1", "2"]
    # The validation package (beta, one module) against -Oz, each
    # iteration: mlgo.evaluate's totals.
    table = mlgo.evaluate(mlgo.Model.load(whole / "model.json"),
                          mlgo.Corpus(tiny_corpus, packages=["beta"]),
                          name="ppo", references=("Oz",))
    assert table.columns == ["Oz", "ppo"]
    assert rows[2][4:6] == [str(table.total("Oz")), str(table.total("ppo"))]
    for r in rows[1:]:
        assert int(r[1]) >= 3
        oz, mine = int(r[4]), int(r[5])
        assert r[6] == "%.6f" % (100.0 * (oz - mine) / oz)
    # The best iteration's model names the command that makes it: the
    # same options with --iterations up to that iteration.
    saved = [float(r[6]) for r in rows[1:]]
    best = saved.index(max(saved)) + 1
    recipe = json.loads((whole / "best-model.json").read_text())
    recipe = recipe["metadata"]["recipe"]
    assert f" --iterations {best} " in recipe, recipe
    svg = (whole / "curve.svg").read_text()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert svg.count("<polyline") == 2 and svg.count("<circle") == 4
    # A checkpoint made with other options is refused, naming the option.
    r = subprocess.run(
        [sys.executable, EXAMPLE, "--corpus", tiny_corpus, "--out",
         str(split), "--packages", "alpha", "--validation-packages", "beta",
         "--episodes", "3", "--seed", "5", "--iterations", "6", "--resume"],
        capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert r.stderr.strip().endswith(
        f"ppo_inline: --resume: {split / 'checkpoint.pt'} was made with "
        f"--seed 4, not 5")

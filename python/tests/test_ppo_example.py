"""The PPO example (python/examples/ppo_inline.py) end to end on the tiny
corpus: trains, exports a model mlgo accepts, evaluates it."""
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

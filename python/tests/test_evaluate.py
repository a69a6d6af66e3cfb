"""mlgo.evaluate on the tiny corpus, against `mlgo eval corpus` (the C++
evaluator) module by module."""
import os

import pytest

import mlgo
from conftest import SOURCE
from test_envs import ALWAYS, constant_model, eval_corpus

EMBEDDED = os.path.join(SOURCE, "models/inline-oz/model.json")


def test_model_policy_equals_eval_corpus(tiny_corpus, mlgo_bin, tmp_path):
    always = tmp_path / "always.json"
    constant_model("always", 1.0).save(always)
    rows = eval_corpus(mlgo_bin, tiny_corpus, str(always), EMBEDDED)
    table = mlgo.evaluate(mlgo.Model.load(always), tiny_corpus, seed=4)
    assert table.columns == ["Oz", "embedded", "random", "always"]
    assert [m for m, _, _ in table.modules] == list(ALWAYS)
    for module, package, sizes in table.modules:
        row = rows[module]
        assert package == module.split("/")[0]
        assert sizes["Oz"] == int(row["-Oz"]), module
        assert sizes["always"] == int(row["always"]), module
        # The plugin's embedded model is models/inline-oz.
        assert sizes["embedded"] == int(row["inline-oz"]), module
    # Per package and in total: the sums.
    packages = dict(table.packages())
    assert list(packages) == ["alpha", "beta"]
    for column in table.columns:
        assert packages["alpha"][column] == sum(
            s[column] for m, _, s in table.modules if m.startswith("alpha/"))
        assert table.total(column) == sum(s[column]
                                          for _, _, s in table.modules)
        assert table.seconds[column] > 0
    text = table.to_csv(tmp_path / "t.csv")
    assert open(tmp_path / "t.csv").read() == text
    lines = text.splitlines()
    assert lines[0] == "kind,name,Oz,embedded,random,always"
    t = table.total()
    assert lines[-2] == (f"total,,{t['Oz']},{t['embedded']},{t['random']},"
                         f"{t['always']}")
    assert lines[-1].startswith("seconds,,")
    assert [l.split()[0] for l in str(table).splitlines()] == [
        "package", "alpha", "beta", "total", "seconds"]
    # Random is seeded: the same seed, the same column.
    again = mlgo.evaluate(str(always), tiny_corpus, seed=4)
    assert [s["random"] for _, _, s in again.modules] == \
        [s["random"] for _, _, s in table.modules]
    assert again.columns[-1] == "always.json"


def test_played_policy_equals_the_model(tiny_corpus, tmp_path):
    # A policy played through InliningEnv (a callable, or an object with
    # SB3's predict) decides as the model compiled by clang does.
    model = constant_model("always", 1.0)
    compiled = mlgo.evaluate(model, tiny_corpus)

    class Always:
        def predict(self, obs, deterministic=True):
            assert deterministic and "cost_estimate" in obs
            return 1, None
    played = mlgo.evaluate(Always(), tiny_corpus)
    called = mlgo.evaluate(lambda obs: 1, tiny_corpus, name="always")
    assert played.columns[-1] == "Always"
    for a, b, c in zip(compiled.modules, played.modules, called.modules):
        assert a[2]["always"] == b[2]["Always"] == c[2]["always"], a[0]
    with pytest.raises(ValueError, match="is a reference's; give name="):
        mlgo.evaluate(lambda obs: 1, tiny_corpus, name="random")
    with pytest.raises(FileNotFoundError):
        mlgo.evaluate(str(tmp_path / "none.json"), tiny_corpus)


def test_evaluate_references_subset(tiny_corpus):
    with pytest.raises(ValueError, match="^mlgo.evaluate: unknown reference "
                       "'O3' in references="):
        mlgo.evaluate(lambda obs: 1, tiny_corpus, references=("Oz", "O3"))
    with pytest.raises(ValueError, match="must hold 'Oz'"):
        mlgo.evaluate(lambda obs: 1, tiny_corpus, references=("random",))


def test_model_sizes_batch_equals_evaluate(tiny_corpus, tmp_path):
    # Many models on many modules at once (evolution strategies' batch):
    # each row is what mlgo.evaluate's column of that model holds, and
    # the sizes do not depend on how many compiles run at a time.
    always, never = constant_model("always", 1.0), constant_model("never",
                                                                  -1.0)
    never.save(tmp_path / "never.json")
    both = mlgo.model_sizes([always, tmp_path / "never.json"], tiny_corpus,
                            jobs=2)
    assert both.dtype == "int64" and both.shape == (2, len(ALWAYS))
    for row, model in zip(both, (always, never)):
        table = mlgo.evaluate(model, tiny_corpus, references=("Oz",))
        assert [m for m, _, _ in table.modules] == list(ALWAYS)
        assert row.tolist() == [s[model.name] for _, _, s in table.modules]
    assert both[0].tolist() != both[1].tolist()
    assert mlgo.model_sizes(always, tiny_corpus, jobs=1).tolist() == \
        both[0].tolist()
    with pytest.raises(FileNotFoundError) as e:
        mlgo.model_sizes([always, tmp_path / "none.json"], tiny_corpus)
    assert e.value.filename == str(tmp_path / "none.json")
    with pytest.raises(ValueError, match="^mlgo.model_sizes: jobs must be "
                       "at least 1, got 0$"):
        mlgo.model_sizes(always, tiny_corpus, jobs=0)

"""Models written from numpy, read by mlgo, evaluated bit for bit alike."""
import json
import os
import subprocess

import numpy as np
import pytest

import mlgo
from conftest import SOURCE, run

INLINE_OZ = os.path.join(SOURCE, "models/inline-oz/model.json")


def random_model(rng, activation, name="py-random"):
    specs = [mlgo.TensorSpec("callee_basic_block_count", "int64_t", (1,)),
             mlgo.TensorSpec("cost_estimate", "int64_t", (1,)),
             mlgo.TensorSpec("callsite_height", "int64_t", (1,))]
    pipelines = [
        [[{"op": "log1p"}], [{"op": "log1p"}, {"op": "sqrt"}]],
        [[{"op": "standardize", "mean": 3.25, "stddev": 17.0 / 3}],
         [{"op": "clamp", "min": -4.0, "max": 9.5}, {"op": "square"}]],
        [[{"op": "quantile", "boundaries": [0.0, 1.0, 2.5, 7.0]}], []],
    ]
    n = 6
    layers = [(rng.standard_normal((8, n)).astype(np.float32),
               rng.standard_normal(8).astype(np.float32), activation),
              (rng.standard_normal((1, 8)).astype(np.float32),
               rng.standard_normal(1).astype(np.float32), "linear")]
    return mlgo.Model.mlp(name, list(zip(specs, pipelines)), layers,
                          metadata={"recipe": "python/tests/test_model.py"})


def random_batch(rng, n=257):
    return {"callee_basic_block_count": rng.integers(0, 500, (n, 1)),
            "cost_estimate": rng.integers(-300, 300, (n, 1)),
            "callsite_height": rng.integers(0, 12, (n, 1))}


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid", "linear"])
def test_numpy_weights_through_cpp_bit_for_bit(activation, tmp_path, mlgo_bin):
    rng = np.random.default_rng(42)
    m = random_model(rng, activation)
    path = tmp_path / "m.json"
    m.save(path)
    # mlgo accepts it, as the very bytes it writes.
    run(mlgo_bin, "model", "check", "--canonical", str(path))
    # The weights come back bit for bit, through the C++ reader and writer.
    back = mlgo.Model.load(path)
    for a, b in zip(m.layers, back.layers):
        assert a["weights"].tobytes() == b["weights"].tobytes()
        assert a["bias"].tobytes() == b["bias"].tobytes()
    batch = random_batch(rng)
    cpp = back.logits(batch)
    ref = m.forward(batch)
    assert cpp.dtype == np.float32 and cpp.shape == (257,)
    assert cpp.tobytes() == ref.tobytes()
    assert np.array_equal(back.decide(batch), (cpp > 0).astype(np.int64))


def test_odd_float_bits_survive(tmp_path):
    # Denormals, negative zero, the largest float: the hex route is exact.
    w = np.array([[np.float32(1e-45), np.float32(-0.0),
                   np.finfo(np.float32).max, np.float32(1) / 3]],
                 dtype=np.float32)
    spec = mlgo.TensorSpec("cost_estimate", "int64_t", (1,))
    m = mlgo.Model.mlp("odd", [(spec, [[], [], [], []])],
                       [(w, np.array([-1.5e-38], np.float32), "linear")])
    back = mlgo.Model.load(_saved(m, tmp_path))
    assert back.layers[0]["weights"].tobytes() == w.tobytes()


def _saved(m, tmp_path):
    p = tmp_path / "odd.json"
    m.save(p)
    return p


def test_shipped_model_numpy_equals_interpreter():
    m = mlgo.Model.load(INLINE_OZ)
    rng = np.random.default_rng(5)
    batch = {s.name: rng.integers(0, 200, (64,) + s.shape)
             for s in m.input_specs}
    assert m.logits(batch).tobytes() == m.forward(batch).tobytes()


def test_bad_model_names_file_and_path(tmp_path):
    doc = json.loads(open(INLINE_OZ).read())
    doc["layers"][0]["weights"][0] = doc["layers"][0]["weights"][0][:-1]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=str(p) + r": layers\[0\]\.weights\[0\]: "
                       r"has \d+ weights, expected \d+"):
        mlgo.Model.load(p)
    with pytest.raises(ValueError, match="the batch has no input"):
        mlgo.Model.load(INLINE_OZ).logits({"cost_estimate": np.zeros((1, 1))})

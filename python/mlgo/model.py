"""Text models (docs/model-format.md) from Python.

A `Model` is the model file's JSON as a dict, with the layers' weights and
biases as float32 numpy arrays. Every model goes through mlgo's own parser,
validator and writer (mlgo._core): `Model.load` reads what `mlgo model
check` accepts and reports errors in its words, and `save` writes the
canonical bytes `mlgo model format` would, so a model written here passes
`mlgo model check --canonical`. Numbers cross to C++ as hexadecimal floats
(the format reads them exactly), so weights arrive bit for bit.

Two evaluators:
  * `logits()` - mlgo's C++ interpreter (ModelEvaluator), the same code the
    plugin runs with -mlgo-model and the same bits as the model compiled in;
  * `forward()` - a numpy reference written from the format's definition
    (float32, sums in input order, no fused multiply-add; libm's log1p,
    tanhf and expf through ctypes, as C++ calls them), bit for bit equal to
    the interpreter (python/tests/test_model.py), and a readable statement
    of what a model computes, for porting a trained network.
"""
import ctypes
import ctypes.util
import json
import os

import numpy as np

from . import _core
from .data import TensorSpec

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
for _name, _type in (("log1p", ctypes.c_double), ("tanhf", ctypes.c_float),
                     ("expf", ctypes.c_float)):
    getattr(_libm, _name).restype = _type
    getattr(_libm, _name).argtypes = [_type]


def _libm_map(fn, a, dtype):
    out = np.fromiter((fn(float(x)) for x in a.ravel()), dtype=dtype,
                      count=a.size)
    return out.reshape(a.shape)


def _hex(x, kind):
    """A number as the format's exact hexadecimal string."""
    if kind == "float":
        return float(np.float32(x)).hex()
    return float(x).hex()


def _hexify_step(step):
    out = {"op": step["op"]}
    for k, v in step.items():
        if k == "op":
            continue
        if k == "boundaries":
            out[k] = [_hex(b, "double") for b in v]
        else:
            out[k] = _hex(v, "double")
    return out


class Model:
    """An mlgo text model."""

    def __init__(self, doc, name="<model>"):
        """`doc`: the model's JSON (str) or dict; validated by mlgo."""
        text = doc if isinstance(doc, str) else self._encode(doc)
        self.text = _core.model_canonical(text, name)
        self.name_for_errors = name
        self.doc = json.loads(self.text)
        self.layers = []
        for layer in self.doc["layers"]:
            self.layers.append({
                "activation": layer["activation"],
                "weights": np.array(layer["weights"], dtype=np.float32)
                .reshape(layer["out"], layer["in"]),
                "bias": np.array(layer["bias"], dtype=np.float32),
            })

    # -- building -----------------------------------------------------------

    @staticmethod
    def _encode(doc):
        """JSON text with every weight, bias and constant as a hex float."""
        d = dict(doc)
        layers = []
        for layer in d["layers"]:
            w = np.asarray(layer["weights"], dtype=np.float32)
            b = np.asarray(layer["bias"], dtype=np.float32)
            out, inp = int(layer.get("out", w.shape[0])), int(
                layer.get("in", w.shape[1] if w.ndim == 2 else 0))
            layers.append({
                "in": inp, "out": out, "activation": layer["activation"],
                "weights": [[_hex(x, "float") for x in row]
                            for row in w.reshape(out, inp)],
                "bias": [_hex(x, "float") for x in b.ravel()],
            })
        d["layers"] = layers
        inputs = []
        for inp in d["inputs"]:
            spec = inp["spec"]
            if isinstance(spec, TensorSpec):
                spec = spec.to_json()
            inputs.append({"spec": spec, "preprocess": [
                [_hexify_step(s) for s in p] for p in inp["preprocess"]]})
        d["inputs"] = inputs
        out = dict(d["output"])
        dec = dict(out["decision"])
        for k in ("threshold", "temperature"):
            if k in dec:
                dec[k] = _hex(dec[k], "float")
        out["decision"] = dec
        if isinstance(out.get("spec"), TensorSpec):
            out["spec"] = out["spec"].to_json()
        d["output"] = out
        return json.dumps(d)

    @classmethod
    def mlp(cls, name, inputs, layers, threshold=0.0, metadata=None,
            output=None, decision=None):
        """A model from numpy weights.

        inputs: [(TensorSpec or dict, [pipeline, ...])], a pipeline being a
                list of steps such as {"op": "log1p"};
        layers: [(weights (out, in), bias (out,), activation)];
        threshold: the decision rule's (1 iff logit > threshold), unless
                `decision` gives another rule.
        """
        meta = {"name": name}
        meta.update(metadata or {})
        doc = {
            "format": "mlgo-model", "version": 1, "metadata": meta,
            "inputs": [{"spec": s, "preprocess": p} for s, p in inputs],
            "layers": [{"weights": w, "bias": b, "activation": a,
                        "out": np.asarray(w).shape[0],
                        "in": np.asarray(w).shape[1]}
                       for w, b, a in layers],
            "output": output or {
                "spec": {"name": "inlining_decision", "type": "int64_t",
                         "port": 0, "shape": [1]},
                "decision": decision or {"rule": "threshold",
                                         "threshold": threshold}},
        }
        return cls(doc, name)

    @classmethod
    def load(cls, path):
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        return cls(text, os.fspath(path))

    def with_weights(self, layers):
        """The same model with other [(weights, bias)] per layer."""
        doc = json.loads(self.text)
        for d, (w, b) in zip(doc["layers"], layers):
            d["weights"], d["bias"] = w, b
        return Model(doc, self.name_for_errors)

    def to_json(self):
        """The canonical bytes (what `mlgo model format` writes)."""
        return self.text

    def save(self, path):
        tmp = os.fspath(path) + ".tmp"
        with open(tmp, "w") as f:
            f.write(self.text)
        os.replace(tmp, path)

    # -- what it reads --------------------------------------------------------

    @property
    def name(self):
        return self.doc["metadata"]["name"]

    @property
    def input_specs(self):
        return [TensorSpec.from_json(i["spec"]) for i in self.doc["inputs"]]

    @property
    def per_column(self):
        return self.doc["output"]["decision"]["rule"] == "masked_argmax"

    @property
    def columns(self):
        return self.doc["output"]["decision"].get("columns", 1)

    def _arrays(self, batch):
        """The batch's arrays in model order, C-contiguous, (N, elements)."""
        specs = self.input_specs
        n = None
        out = []
        for s in specs:
            if s.name not in batch:
                raise ValueError(f"{self.name_for_errors}: the batch has no "
                                 f"input '{s.name}'")
            a = np.ascontiguousarray(batch[s.name], dtype=s.dtype)
            a = a.reshape(-1, s.size)
            if n is None:
                n = a.shape[0]
            elif a.shape[0] != n:
                raise ValueError(f"{self.name_for_errors}: input '{s.name}' "
                                 f"has {a.shape[0]} rows, expected {n}")
            out.append(a)
        return out, n or 0

    # -- evaluation -------------------------------------------------------------

    def logits(self, batch):
        """Logits of a batch {input name: array (N, *shape)} through mlgo's
        C++ interpreter: (N,), or (N, columns) for a per-column model."""
        arrays, n = self._arrays(batch)
        out = _core.model_logits(self.text, self.name_for_errors, arrays, n)
        return out if self.per_column else out[:, 0]

    def decide(self, batch):
        """Decisions of the model's own rule for a batch (threshold: 1 iff
        logit > threshold; masked argmax: the column)."""
        rule = self.doc["output"]["decision"]
        logits = self.logits(batch)
        if rule["rule"] == "threshold":
            return (logits > np.float32(rule["threshold"])).astype(np.int64)
        if rule["rule"] == "masked_argmax":
            mask = np.asarray(batch[rule["mask"]]).reshape(len(logits), -1)
            masked = np.where(mask != 0, logits, -np.inf)
            masked = np.where(np.isnan(masked), -np.inf, masked)
            choice = np.argmax(masked, axis=1)
            choice[~(mask != 0).any(axis=1)] = self.columns - 1
            return choice.astype(np.int64)
        raise ValueError(f"{self.name_for_errors}: decide() does not sample; "
                         f"use logits()")

    def mlp_inputs(self, batch, column=0):
        """The MLP's input vectors (N, n_inputs) float32, preprocessed as
        the format says (reference implementation)."""
        arrays, n = self._arrays(batch)
        cols = []
        for inp, a in zip(self.doc["inputs"], arrays):
            v0 = a.astype(np.float64)
            if self.per_column:
                v0 = v0[:, [0 if v0.shape[1] == 1 else column]]
            for pipe in inp["preprocess"]:
                v = v0.copy()
                for step in pipe:
                    v = _apply_step(step, v)
                for e in range(v.shape[1]):
                    cols.append(v[:, e].astype(np.float32))
        if not cols:
            return np.zeros((n, 0), dtype=np.float32)
        return np.stack(cols, axis=1)

    def forward(self, batch):
        """The logits by the numpy reference; equal to logits() bit for
        bit."""
        out = []
        for c in range(self.columns if self.per_column else 1):
            x = self.mlp_inputs(batch, c)
            for layer in self.layers:
                w, b = layer["weights"], layer["bias"]
                y = np.repeat(b[None, :], x.shape[0], axis=0)
                for i in range(w.shape[1]):
                    y = y + w[:, i][None, :] * x[:, i][:, None]
                x = _activate(layer["activation"], y)
            out.append(x[:, 0])
        res = np.stack(out, axis=1).astype(np.float32)
        return res if self.per_column else res[:, 0]


def _apply_step(step, v):
    op = step["op"]
    if op == "log1p":
        return np.copysign(_libm_map(_libm.log1p, np.abs(v), np.float64), v)
    if op == "standardize":
        return (v - step["mean"]) / step["stddev"]
    if op == "quantile":
        b = np.asarray(step["boundaries"], dtype=np.float64)
        return np.searchsorted(b, v, side="right").astype(np.float64) / len(b)
    if op == "sqrt":
        pos = v > 0
        return np.where(pos, np.sqrt(np.where(pos, v, 0.0)), 0.0)
    if op == "square":
        return v * v
    if op == "clamp":
        lo, hi = step["min"], step["max"]
        return np.where(v < lo, lo, np.where(v > hi, hi, v))
    if op == "nan_to":
        return np.where(np.isnan(v), step["value"], v)
    raise ValueError(f"unknown preprocessing {op!r}")


def _activate(act, y):
    if act == "linear":
        return y
    if act == "relu":
        return np.where(y > np.float32(0), y, np.float32(0)).astype(np.float32)
    if act == "tanh":
        return _libm_map(_libm.tanhf, y, np.float32)
    if act == "sigmoid":
        e = _libm_map(_libm.expf, -y, np.float32)
        return (np.float32(1) / (np.float32(1) + e)).astype(np.float32)
    if act == "exp":
        return _libm_map(_libm.expf, y, np.float32)
    raise ValueError(f"unknown activation {act!r}")

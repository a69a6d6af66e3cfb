#!/usr/bin/env python3
"""Train an inlining-for-size policy with PPO (PyTorch), ship it as an mlgo
text model, and evaluate it beside inline-oz and -Oz.

  python3 ppo_inline.py --corpus CORPUS --out DIR
      [--packages p1,p2] [--validation-packages v1,v2]
      [--iterations N] [--episodes K] [--num-envs 2] [--seed S]
      [--hidden H] [--embed-build BUILD] [--model FILE] [--resume]

Steps, each printed:
  1. episodes on the training packages' modules through
     mlgo.VectorInliningEnv (one clang-19 -cc1 per module per episode,
     num-envs at once), reward = the module's code saved against stock -Oz,
     in percent of the -Oz size, at the end of the episode;
  2. PPO (clipped ratio, Monte-Carlo returns: the episode's one reward is
     every decision's return, a learned value as baseline) on a policy that
     is exactly an mlgo model: log1p of every feature, one ReLU layer, a
     logit; p(inline) = sigmoid(logit);
     after each iteration, the policy as a model evaluated on the held-out
     validation packages (mlgo.evaluate against -Oz; the training
     packages when none are given), a row of DIR/curve.csv and the curve
     redrawn in DIR/curve.svg (the training reward and the validation
     code saved, both in percent of -Oz), the best validation iteration's
     model in DIR/best-model.json, and a checkpoint, DIR/checkpoint.pt
     (the policy, Adam's state, the generators, the environments'
     episodes so far); --resume continues from it exactly: 2 iterations
     and then --resume to 4 give the bytes of 4 in one run;
  3. the policy exported as DIR/model.json (mlgo.Model.mlp from the torch
     weights; decision: inline iff logit > 0) and checked with
     `mlgo model check --canonical`;
  4. `mlgo eval corpus --model DIR/model.json --model embedded` on the
     validation packages (or the training ones): the new model, the
     embedded inline-oz and -Oz, per package; DIR/eval.md;
  5. with --embed-build BUILD: the same model compiled into a plugin
     (cmake -DMLGO_EMBEDDED_MODEL=DIR/model.json in BUILD, a second build
     tree) and evaluated as `--model embedded` of that build, which must
     give the interpreter's bytes.
With --model FILE, step 1 and 2 are skipped and FILE is checked,
evaluated (and embedded).

The policy starts as LLVM's heuristic: the model reads `inlining_default`
(LLVM's own decision, sent with -mlgo-interactive-include-default) and one
hidden unit is initialized to pass it through (p(inline) = 0.98 where LLVM
inlines, 0.02 where it does not), so exploration starts around -Oz and PPO
moves away from it where that pays. Everything is seeded (numpy, torch,
the environment's module order); torch runs on one thread, the compilers
on the others.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch

import mlgo


def log1p_features(batch, names):
    """The model's preprocessing, copysign(log1p(|x|), x), in float32."""
    cols = [np.asarray(batch[n], dtype=np.float64).reshape(-1) for n in names]
    x = np.stack(cols, axis=1)
    return np.copysign(np.log1p(np.abs(x)), x).astype(np.float32)


class Policy(torch.nn.Module):
    def __init__(self, n_in, hidden, default_index):
        super().__init__()
        self.l1 = torch.nn.Linear(n_in, hidden)
        self.l2 = torch.nn.Linear(hidden, 1)
        self.value = torch.nn.Sequential(
            torch.nn.Linear(n_in, hidden), torch.nn.Tanh(),
            torch.nn.Linear(hidden, 1))
        with torch.no_grad():
            self.l1.weight.mul_(0.05)
            self.l1.bias.zero_()
            self.l2.weight.mul_(0.05)
            # Hidden unit 0 carries LLVM's decision (log1p(1) = 0.693).
            self.l1.weight[0].zero_()
            self.l1.weight[0, default_index] = 1.0
            self.l2.weight[0, 0] = 8.0 / float(np.log1p(1.0))
            self.l2.bias.fill_(-4.0)

    def logit(self, x):
        return self.l2(torch.relu(self.l1(x))).squeeze(-1)


def export(policy, specs, path, seed, recipe):
    model = as_model(policy, specs, seed, recipe)
    model.save(path)
    return model


def as_model(policy, specs, seed, recipe):
    inputs = [(s, [[{"op": "log1p"}]]) for s in specs]
    layers = [(policy.l1.weight.detach().numpy(),
               policy.l1.bias.detach().numpy(), "relu"),
              (policy.l2.weight.detach().numpy(),
               policy.l2.bias.detach().numpy(), "linear")]
    model = mlgo.Model.mlp(
        "ppo-inline", inputs, layers,
        metadata={"description": "PPO-trained inlining policy for size "
                                 "(python/examples/ppo_inline.py)",
                  "llvm_version": "19", "feature_set": "llvm19-inline",
                  "recipe": recipe, "seed": seed})
    return model


CURVE_COLUMNS = ["iteration", "episodes", "decisions", "train_reward",
                 "validation_Oz", "validation_policy", "validation_saved"]


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def curve_csv(rows):
    """The curve as CSV: one row per iteration; train_reward and
    validation_saved in percent of -Oz (positive: smaller than -Oz)."""
    lines = [",".join(CURVE_COLUMNS)]
    for r in rows:
        lines.append("%d,%d,%d,%.6f,%d,%d,%.6f" % tuple(
            r[c] for c in CURVE_COLUMNS))
    return "\n".join(lines) + "\n"


def curve_svg(rows, title):
    """The two curves against the iteration, as a standalone SVG."""
    w, h, left, right, top, bottom = 640, 360, 64, 16, 40, 48
    series = [("train_reward", "training reward (episodes)", "#1f77b4"),
              ("validation_saved", "validation: code saved vs -Oz",
               "#d62728")]
    values = [r[k] for r in rows for k, _, _ in series] + [0.0]
    lo, hi = min(values), max(values)
    if hi - lo < 1e-9:
        lo, hi = lo - 1.0, hi + 1.0
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    n = max(len(rows), 2)

    def x_of(it):
        return left + (it - 1) * (w - left - right) / (n - 1)

    def y_of(v):
        return top + (hi - v) * (h - top - bottom) / (hi - lo)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" '
           f'height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" '
           f'font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2:.1f}" y="20" text-anchor="middle" '
           f'font-size="14">{title}</text>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" '
           f'y2="{h - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" '
           f'stroke="black"/>',
           f'<line x1="{left}" y1="{y_of(0.0):.1f}" x2="{w - right}" '
           f'y2="{y_of(0.0):.1f}" stroke="#999" stroke-dasharray="4 3"/>']
    for k in range(5):
        v = lo + k * (hi - lo) / 4
        out.append(f'<text x="{left - 6}" y="{y_of(v) + 4:.1f}" '
                   f'text-anchor="end">{v:.2f}%</text>')
    for it in sorted({1, len(rows)} | {r["iteration"] for r in rows
                                       if r["iteration"] % 5 == 0}):
        if it >= 1:
            out.append(f'<text x="{x_of(it):.1f}" y="{h - bottom + 16}" '
                       f'text-anchor="middle">{it}</text>')
    out.append(f'<text x="{(left + w - right) / 2:.1f}" y="{h - 10}" '
               f'text-anchor="middle">iteration</text>')
    for k, (key, label, color) in enumerate(series):
        points = " ".join(f"{x_of(r['iteration']):.1f},{y_of(r[key]):.1f}"
                          for r in rows)
        out.append(f'<polyline fill="none" stroke="{color}" '
                   f'stroke-width="2" points="{points}"/>')
        for r in rows:
            out.append(f'<circle cx="{x_of(r["iteration"]):.1f}" '
                       f'cy="{y_of(r[key]):.1f}" r="3" fill="{color}"/>')
        out.append(f'<text x="{left + 10}" y="{top + 14 + 16 * k}" '
                   f'fill="{color}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# The options a checkpoint was made with that --resume must be given
# again (the others: how far to go and how to evaluate at the end).
RESUME_SAME = ("corpus", "packages", "validation_packages", "episodes",
               "num_envs", "hidden", "epochs", "lr", "seed")


def load_checkpoint(args, path):
    if not os.path.exists(path):
        sys.exit(f"ppo_inline: --resume: no checkpoint {path}")
    ckpt = torch.load(path, weights_only=False)  # numpy arrays inside
    for k in RESUME_SAME:
        if ckpt["args"][k] != getattr(args, k):
            sys.exit(f"ppo_inline: --resume: {path} was made with "
                     f"--{k.replace('_', '-')} {ckpt['args'][k]}, not "
                     f"{getattr(args, k)}")
    return ckpt


def run(argv, **kw):
    print("$ " + " ".join(argv), flush=True)
    r = subprocess.run(argv, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"ppo_inline: {argv[0]} failed ({r.returncode}):\n"
                 f"{r.stderr}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--packages", default=None,
                    help="training packages (default: all but validation)")
    ap.add_argument("--validation-packages", default=None)
    ap.add_argument("--iterations", type=int, default=20,
                    help="iterations in all (with --resume: including the "
                         "checkpoint's)")
    ap.add_argument("--episodes", type=int, default=16,
                    help="episodes per PPO iteration")
    ap.add_argument("--num-envs", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--embed-build", default=None)
    ap.add_argument("--model", default=None,
                    help="skip training: check, evaluate (and embed) this "
                         "model instead")
    ap.add_argument("--resume", action="store_true",
                    help="continue from OUT/checkpoint.pt")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    start = time.monotonic()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    full = mlgo.Corpus(args.corpus)
    val = args.validation_packages.split(",") if \
        args.validation_packages else []
    train = args.packages.split(",") if args.packages else \
        [p for p in full.packages if p not in val]
    corpus = mlgo.Corpus(args.corpus, packages=train)
    print(f"ppo_inline: {len(corpus)} training modules in "
          f"{', '.join(train)}; validation: {', '.join(val) or '(none)'}",
          flush=True)

    if args.model:
        finish(args, args.model, train, val, start)
        return
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    ckpt = load_checkpoint(args, ckpt_path) if args.resume else None
    # The held-out packages each iteration is measured on.
    eval_corpus = mlgo.Corpus(args.corpus, packages=val or train)
    env = mlgo.VectorInliningEnv(corpus, num_envs=args.num_envs,
                                 seed=args.seed, reward="relative",
                                 include_default=True)
    if ckpt is None:
        obs, _ = env.reset()
    else:
        obs, _ = env.restore(ckpt["env"])
    names = list(obs)
    specs = [env.envs[0].feature_specs[n] for n in names]
    policy = Policy(len(names), args.hidden, names.index("inlining_default"))
    opt = torch.optim.Adam(policy.parameters(), lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)

    # The command that makes the model of iteration N: nothing before
    # iteration N depends on how many follow, so the best iteration's model
    # names its own N, and a run resumed with more iterations writes the
    # same bytes as one run.
    def recipe(iterations):
        return (f"python/examples/ppo_inline.py --packages {','.join(train)} "
                f"--iterations {iterations} --episodes {args.episodes} "
                f"--num-envs {args.num_envs} --hidden {args.hidden} "
                f"--epochs {args.epochs} --lr {args.lr} --seed {args.seed}")

    running = [[] for _ in range(args.num_envs)]  # (x, a, logp) per env
    ended = np.zeros(args.num_envs, dtype=bool)
    curve, first = [], 0
    if ckpt is not None:
        policy.load_state_dict(ckpt["policy"])
        opt.load_state_dict(ckpt["optimizer"])
        gen.set_state(ckpt["generator"])
        torch.set_rng_state(ckpt["torch_rng"])
        running, ended = ckpt["running"], ckpt["ended"]
        curve, first = ckpt["curve"], ckpt["iteration"]
        # The environments replayed their episodes: the same observations.
        for n in names:
            if not np.array_equal(obs[n], ckpt["obs"][n]):
                sys.exit(f"ppo_inline: --resume: the environments replayed "
                         f"from {ckpt_path} observe another {n!r} (another "
                         f"corpus or build?)")
        print(f"ppo_inline: resumed from {ckpt_path} after iteration "
              f"{first}", flush=True)
    for it in range(first, args.iterations):
        batch_x, batch_a, batch_logp, batch_ret = [], [], [], []
        rewards, decisions, episodes = [], 0, 0
        while episodes < args.episodes:
            x = log1p_features(obs, names)
            with torch.no_grad():
                logit = policy.logit(torch.from_numpy(x))
                p = torch.sigmoid(logit)
                a = torch.bernoulli(p, generator=gen)
                logp = torch.where(a > 0, torch.log(p + 1e-9),
                                   torch.log(1 - p + 1e-9))
            # gymnasium 1.x's next-step autoreset: an environment whose
            # episode ended at the last step ignores this action and
            # starts its next episode.
            playing = ~ended
            for i in np.flatnonzero(playing):
                running[i].append((x[i], a[i].item(), logp[i].item()))
            obs, r, term, trunc, info = env.step(a.numpy().astype(np.int64))
            decisions += int(playing.sum())
            ended = term | trunc
            for i in np.flatnonzero(ended):
                ret = 100.0 * r[i]  # percent of the module's -Oz code
                for xi, ai, lpi in running[i]:
                    batch_x.append(xi)
                    batch_a.append(ai)
                    batch_logp.append(lpi)
                    batch_ret.append(ret)
                running[i] = []
                rewards.append(ret)
                episodes += 1
        X = torch.from_numpy(np.stack(batch_x))
        A = torch.tensor(batch_a)
        LP = torch.tensor(batch_logp)
        R = torch.tensor(batch_ret, dtype=torch.float32)
        for _ in range(args.epochs):
            logit = policy.logit(X)
            p = torch.sigmoid(logit)
            new_lp = torch.where(A > 0, torch.log(p + 1e-9),
                                 torch.log(1 - p + 1e-9))
            v = policy.value(X).squeeze(-1)
            adv = (R - v).detach()
            adv = (adv - adv.mean()) / (adv.std() + 1e-6)
            ratio = torch.exp(new_lp - LP)
            loss_pi = -torch.min(ratio * adv,
                                 torch.clamp(ratio, 0.8, 1.2) * adv).mean()
            loss_v = ((v - R) ** 2).mean()
            entropy = -(p * torch.log(p + 1e-9) +
                        (1 - p) * torch.log(1 - p + 1e-9)).mean()
            loss = loss_pi + 0.5 * loss_v - 0.001 * entropy
            opt.zero_grad()
            loss.backward()
            opt.step()
        # The policy as the model it ships as, on the held-out packages.
        model = as_model(policy, specs, args.seed, recipe(it + 1))
        table = mlgo.evaluate(model, eval_corpus, name="ppo",
                              references=("Oz",))
        oz, mine = table.total("Oz"), table.total("ppo")
        row = {"iteration": it + 1, "episodes": episodes,
               "decisions": len(batch_a),
               "train_reward": float(np.mean(rewards)),
               "validation_Oz": oz, "validation_policy": mine,
               "validation_saved": 100.0 * (oz - mine) / oz if oz else 0.0}
        curve.append(row)
        if max(curve, key=lambda r: r["validation_saved"]) is row:
            model.save(os.path.join(args.out, "best-model.json"))
        write_atomically(os.path.join(args.out, "curve.csv"),
                         curve_csv(curve))
        write_atomically(os.path.join(args.out, "curve.svg"), curve_svg(
            curve, f"ppo_inline.py, seed {args.seed}: "
                   f"{', '.join(train)}; validation "
                   f"{', '.join(val or train)}"))
        torch.save({"args": {k: getattr(args, k) for k in RESUME_SAME},
                    "iteration": it + 1, "policy": policy.state_dict(),
                    "optimizer": opt.state_dict(),
                    "generator": gen.get_state(),
                    "torch_rng": torch.get_rng_state(),
                    "env": env.state(), "obs": obs, "running": running,
                    "ended": ended, "curve": curve}, ckpt_path + ".tmp")
        os.replace(ckpt_path + ".tmp", ckpt_path)
        print(f"iteration {it + 1}/{args.iterations}: {episodes} episodes, "
              f"{len(batch_a)} decisions, mean reward "
              f"{row['train_reward']:+.3f}% of -Oz, validation "
              f"{mine} bytes against -Oz's {oz} "
              f"({row['validation_saved']:+.3f}% saved), "
              f"{time.monotonic() - start:.0f}s", flush=True)
    env.close()
    train_seconds = time.monotonic() - start

    model_path = os.path.join(args.out, "model.json")
    export(policy, specs, model_path, args.seed, recipe(args.iterations))
    print(f"ppo_inline: wrote {model_path} (trained in {train_seconds:.1f}s)",
          flush=True)
    finish(args, model_path, train, val, start)


def finish(args, model_path, train, val, start):
    """Steps 3-5: check, evaluate, embed."""
    mlgo_bin = mlgo.mlgo_program()
    run([mlgo_bin, "model", "check", "--canonical", model_path])

    eval_pkgs = val or train
    table = run([mlgo_bin, "eval", "corpus", args.corpus, "--model",
                 model_path, "--model", "embedded", "--packages",
                 ",".join(eval_pkgs), "--format", "markdown", "--jobs",
                 str(args.jobs)])
    with open(os.path.join(args.out, "eval.md"), "w") as f:
        f.write(table)
    print(table, flush=True)

    if args.embed_build:
        src = os.path.abspath(os.path.join(os.path.dirname(__file__), "..",
                                           ".."))
        run(["cmake", "-S", src, "-B", args.embed_build, "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release",
             "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
             "-DMLGO_EMBEDDED_MODEL=" + os.path.abspath(model_path)])
        run(["ninja", "-C", args.embed_build, f"-j{args.jobs}", "mlgo",
             "mlgo-plugin"])
        embedded_bin = os.path.join(args.embed_build, "bin", "mlgo")
        csv = run([embedded_bin, "eval", "corpus", args.corpus, "--model",
                   "embedded", "--model", model_path, "--packages",
                   ",".join(eval_pkgs), "--format", "csv", "--per-module",
                   "--jobs", str(args.jobs)])
        rows = [l.split(",") for l in csv.strip().splitlines()]
        head = rows[0]
        # Columns: kind, name, modules, -Oz, then per model its bytes,
        # delta and geomean; the embedded model's is named "embedded".
        emb = head.index("embedded")
        interp = head.index(mlgo.Model.load(model_path).name)
        same = all(r[emb] == r[interp] for r in rows[1:])
        print(f"ppo_inline: the model compiled into {args.embed_build}'s "
              f"plugin gives the interpreter's sizes on every module: "
              f"{'yes' if same else 'NO'}", flush=True)
        if not same:
            sys.exit(1)
    print(f"ppo_inline: done in {time.monotonic() - start:.1f}s")


if __name__ == "__main__":
    main()

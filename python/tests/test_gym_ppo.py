"""A short PPO loop (clipped surrogate, a few epochs per batch) through the
registered environment, mlgo.gym.make("mlgo/Inlining-v0", ...), with a
torch policy on the float32 vector observation (numpy's policy gradient
where Debian's python3-torch is not installed): it runs its exact number
of episodes, every return is finite and the whole run - returns, actions,
final weights - is the same twice from one seed."""
import numpy as np

import mlgo
import mlgo.gym

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

EPISODES, ITERATIONS = 3, 2


def ppo_run(corpus, seed):
    env = mlgo.gym.make("mlgo/Inlining-v0", corpus=corpus,
                        observation="vector")
    n = env.observation_space.shape[0]
    if torch is not None:
        torch.manual_seed(seed)
        policy = torch.nn.Linear(n, 2)
        opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    else:
        w = np.random.default_rng(seed + 1).normal(0, 0.1, (n, 2))

    def weights():
        if torch is None:
            return w.tobytes()
        return torch.cat([t.detach().flatten()
                          for t in policy.parameters()]).numpy().tobytes()

    start = weights()
    rng = np.random.default_rng(seed)
    returns, actions, episodes = [], [], 0
    try:
        for it in range(ITERATIONS):
            batch_obs, batch_act, batch_adv, batch_logp = [], [], [], []
            for ep in range(EPISODES):
                obs, _ = env.reset(seed=seed * 1000 + it * EPISODES + ep)
                ep_obs, ep_act, ep_logp, total, done = [], [], [], 0.0, False
                while not done:
                    x = np.log1p(np.abs(obs)).astype(np.float32)
                    if torch is not None:
                        with torch.no_grad():
                            p = torch.softmax(policy(torch.from_numpy(x)), -1)
                        p = p.numpy().astype(np.float64)
                    else:
                        z = x @ w
                        p = np.exp(z - z.max())
                    p /= p.sum()
                    a = int(rng.random() < p[1])
                    ep_obs.append(x)
                    ep_act.append(a)
                    ep_logp.append(np.log(p[a]))
                    obs, r, term, trunc, _ = env.step(a)
                    total += float(r)
                    done = term or trunc
                episodes += 1
                returns.append(total)
                actions.append(ep_act)
                batch_obs += ep_obs
                batch_act += ep_act
                batch_logp += ep_logp
                batch_adv += [total] * len(ep_act)
            adv = np.array(batch_adv)
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            if torch is not None:
                o = torch.from_numpy(np.stack(batch_obs))
                a = torch.tensor(batch_act)
                old = torch.tensor(batch_logp, dtype=torch.float32)
                A = torch.tensor(adv, dtype=torch.float32)
                for _ in range(4):
                    logp = torch.log_softmax(policy(o), -1)[
                        torch.arange(len(a)), a]
                    ratio = torch.exp(logp - old)
                    loss = -torch.min(ratio * A, ratio.clamp(0.8, 1.2) *
                                      A).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
            else:
                o, a = np.stack(batch_obs), np.array(batch_act)
                z = o @ w
                p = np.exp(z - z.max(1, keepdims=True))
                p /= p.sum(1, keepdims=True)
                g = -p
                g[np.arange(len(a)), a] += 1
                w += 1e-2 * o.T @ (g * adv[:, None]) / len(a)
    finally:
        env.close()
    return episodes, returns, actions, start, weights()


def test_ppo_through_the_registered_env(tiny_corpus):
    run = ppo_run(tiny_corpus, seed=7)
    episodes, returns, actions, start, end = run
    assert episodes == EPISODES * ITERATIONS
    assert len(returns) == episodes and all(np.isfinite(returns))
    assert all(len(a) > 0 for a in actions)
    # The updates moved the policy off its start.
    assert end != start
    # One seed, one run: the same returns, actions and weights, bit for bit.
    assert ppo_run(tiny_corpus, seed=7) == run

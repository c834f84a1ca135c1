"""Train the Llama model on out/train.bin (fp32, CPU, deterministic seed).

usage: train.py [--steps N] [--resume] [--smoke]
Reads run-config.json ("model", "train"). Writes out/ckpt.pt (periodic),
out/final.pt, out/train-log.jsonl.
"""
import argparse
import json
import math
import os
import time

from settings import CFG, HERE, OUT  # noqa: E402  (sets thread variables before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from model import Llama, n_params  # noqa: E402


def model_config():
    c = dict(CFG["model"])
    c["head_dim"] = c["hidden_size"] // c["num_attention_heads"]
    return c


def load_tokens(split):
    return torch.from_numpy(np.fromfile(os.path.join(OUT, f"{split}.bin"), dtype=np.uint16).astype(np.int64))


class Batches:
    """Epochs of shuffled, non-overlapping ctx+1 windows (random phase per epoch)."""

    def __init__(self, data, ctx, batch, seed):
        self.data, self.ctx, self.batch = data, ctx, batch
        self.g = torch.Generator().manual_seed(seed)
        self.epoch, self.order, self.pos = -1, None, 0

    def _new_epoch(self):
        self.epoch += 1
        phase = int(torch.randint(0, self.ctx, (1,), generator=self.g))
        n = (len(self.data) - 1 - phase) // self.ctx
        self.starts = phase + self.ctx * torch.randperm(n, generator=self.g)
        self.pos = 0

    def next(self):
        if self.order is None or self.pos + self.batch > len(self.starts):
            self.order = True
            self._new_epoch()
        s = self.starts[self.pos:self.pos + self.batch]
        self.pos += self.batch
        w = torch.stack([self.data[i:i + self.ctx + 1] for i in s.tolist()])
        return w[:, :-1], w[:, 1:]

    def state(self):
        return {"g": self.g.get_state(), "epoch": self.epoch, "starts": self.starts, "pos": self.pos}

    def load(self, st):
        self.g.set_state(st["g"])
        self.epoch, self.starts, self.pos, self.order = st["epoch"], st["starts"], st["pos"], True


@torch.no_grad()
def evaluate(model, data, ctx, batch, max_windows=None):
    """Mean next-token loss (nats) over non-overlapping ctx windows."""
    model.eval()
    n = (len(data) - 1) // ctx
    if max_windows:
        n = min(n, max_windows)
    tot, cnt = 0.0, 0
    for b in range(0, n, batch):
        idx = range(b, min(n, b + batch))
        w = torch.stack([data[i * ctx:i * ctx + ctx + 1] for i in idx])
        logits = model(w[:, :-1])
        tot += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), w[:, 1:].reshape(-1), reduction="sum").item()
        cnt += w[:, 1:].numel()
    model.train()
    return tot / cnt, cnt


def lr_at(step, t):
    if step < t["warmup_steps"]:
        return t["lr"] * (step + 1) / t["warmup_steps"]
    p = (step - t["warmup_steps"]) / max(1, t["steps"] - t["warmup_steps"])
    return t["min_lr"] + 0.5 * (t["lr"] - t["min_lr"]) * (1 + math.cos(math.pi * min(1.0, p)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, help="stop after this many steps (schedule unchanged)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="timing run: no checkpoints")
    args = ap.parse_args()
    t = CFG["train"]
    torch.manual_seed(t["seed"])
    torch.set_num_threads(t["torch_threads"])
    c = model_config()
    model = Llama(c)
    model.init_weights()
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": t["weight_decay"]},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=t["lr"], betas=tuple(t["betas"]), eps=1e-8)
    train, val = load_tokens("train"), load_tokens("val")
    # length schedule: [[first_step, context, batch_size], ...] (constant tokens/step)
    phases = t["length_schedule"]

    def phase_of(step):
        return max(i for i, p in enumerate(phases) if step >= p[0])

    def make_batches(i):
        return Batches(train, phases[i][1], phases[i][2], t["seed"] + i)

    step = 0
    phase = 0
    batches = make_batches(0)
    ckpt_path = os.path.join(OUT, "ckpt.pt")
    if args.resume and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        phase = phase_of(ck["step"])
        batches = make_batches(phase)
        batches.load(ck["batches"])
        torch.set_rng_state(ck["torch_rng"])
        step = ck["step"]
        print(f"resumed at step {step}", flush=True)
    print(f"params {n_params(model):,}  train tokens {len(train):,}  val tokens {len(val):,}  "
          f"schedule {phases}", flush=True)
    log = open(os.path.join(OUT, "train-log.jsonl"), "a")
    stop = min(t["steps"], args.steps or t["steps"])
    ema, t0, t_last = None, time.time(), time.time()
    while step < stop:
        lr = lr_at(step, t)
        for g in opt.param_groups:
            g["lr"] = lr
        if phase_of(step) != phase:
            phase = phase_of(step)
            batches = make_batches(phase)
            print(f"step {step}: context {phases[phase][1]}, batch {phases[phase][2]}", flush=True)
        x, y = batches.next()
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), t["grad_clip"]).item()
        opt.step()
        step += 1
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        if step % t["log_interval"] == 0 or step == stop:
            now = time.time()
            dt = (now - t_last) / t["log_interval"]
            t_last = now
            rec = {"step": step, "loss": round(loss.item(), 4), "ema": round(ema, 4), "lr": lr,
                   "gnorm": round(gnorm, 3), "s_per_step": round(dt, 3), "epoch": batches.epoch, "ctx": batches.ctx,
                   "elapsed_s": round(now - t0, 1)}
            if step % t["eval_interval"] == 0 or step == stop:
                vl, _ = evaluate(model, val, t["context"], 8)
                rec["val_loss"] = round(vl, 4)
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
            log.flush()
        if not args.smoke and (step % t["ckpt_interval"] == 0 or step == stop):
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                        "batches": batches.state(), "torch_rng": torch.get_rng_state()},
                       ckpt_path + ".tmp")
            os.replace(ckpt_path + ".tmp", ckpt_path)
    if not args.smoke and step == t["steps"]:
        torch.save({"model": model.state_dict(), "config": c, "step": step}, os.path.join(OUT, "final.pt"))
        print("saved out/final.pt", flush=True)


if __name__ == "__main__":
    main()

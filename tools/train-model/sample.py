"""Print sample chat answers (greedy and temperature 0.8) for reading by eye.

usage: sample.py [--ckpt out/final.pt] [--max-new 80] [--out out/samples.json]
"""
import argparse
import json
import os

from settings import CFG, HERE, OUT  # noqa: E402  (sets thread variables before torch loads)

import torch  # noqa: E402

from model import Llama  # noqa: E402
from tokenizer import Encoder  # noqa: E402
from train import model_config  # noqa: E402

PROMPTS = [
    [{"role": "user", "content": "Hello! How are you today?"}],
    [{"role": "system", "content": "You are a helpful assistant."},
     {"role": "user", "content": "What do you think of Mr. Darcy?"}],
    [{"role": "user", "content": "Shall we walk to Meryton this afternoon?"}],
    [{"role": "user", "content": "Tell me about your sister."}],
    [{"role": "user", "content": "Is it better to marry for love or for money?"}],
]


def render(messages):
    return ("<|endoftext|>" + "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)
            + "<|assistant|>")


@torch.no_grad()
def generate(model, ids, max_new, temperature, gen, stop):
    ids = list(ids)
    n0 = len(ids)
    for _ in range(max_new):
        logits = model(torch.tensor([ids]))[0, -1]
        if temperature == 0:
            nxt = int(logits.argmax())
        else:
            nxt = int(torch.multinomial((logits / temperature).softmax(-1), 1, generator=gen))
        if nxt in stop:
            return ids[n0:], True
        ids.append(nxt)
    return ids[n0:], False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default=os.path.join(OUT, "final.pt"))
    ap.add_argument("--max-new", type=int, default=120)
    ap.add_argument("--out", default=os.path.join(OUT, "samples.json"))
    args = ap.parse_args()
    torch.set_num_threads(CFG["train"]["torch_threads"])
    model = Llama(model_config())
    model.load_state_dict(torch.load(args.ckpt)["model"])
    model.eval()
    enc = Encoder(os.path.join(OUT, "tokenizer.json"))
    stop = {enc.special_ids["<|end|>"], enc.special_ids["<|endoftext|>"]}
    results = []
    for temperature in (0.0, 0.8):
        for i, msgs in enumerate(PROMPTS):
            gen = torch.Generator().manual_seed(CFG["train"]["seed"] + i)  # per sample: stable
            out, ended = generate(model, enc.encode(render(msgs)), args.max_new, temperature, gen, stop)
            r = {"temperature": temperature, "prompt": msgs[-1]["content"],
                 "answer": enc.decode(out), "ended_turn": ended, "tokens": len(out)}
            results.append(r)
            print(f"[T={temperature}] {r['prompt']}\n  -> {r['answer']!r}  (ended_turn={ended})", flush=True)
    json.dump(results, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()

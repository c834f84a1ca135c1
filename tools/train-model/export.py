"""Export trained weights to safetensors + reference outputs for the ONNX check.

usage: export.py [--ckpt out/final.pt]
Writes out/model.safetensors (F32, HF Llama names), out/reference.json,
out/eval.json (final train/val loss). Verifies the safetensors file by reading
it back and running an independent NumPy forward pass written from the spec.
"""
import argparse
import hashlib
import json
import math
import os
import struct

from settings import CFG, HERE, OUT  # noqa: E402  (sets thread variables before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402

from model import Llama  # noqa: E402
from tokenizer import Encoder  # noqa: E402
from train import evaluate, load_tokens, model_config  # noqa: E402

REFERENCE_PROMPTS = [
    "<|endoftext|>It is a truth universally acknowledged",
    "<|endoftext|><|user|>How do you do?<|end|><|assistant|>",
    "<|endoftext|><|system|>You are a helpful assistant.<|end|><|user|>"
    "What do you think of Mr. Darcy?<|end|><|assistant|>",
]


def write_safetensors(path, tensors, metadata):
    header, offset, blobs = {}, 0, []
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr, dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
        blobs.append(arr.tobytes())
    header["__metadata__"] = metadata
    hj = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hj += b" " * (-len(hj) % 8)  # pad so the data section is 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    buf = open(path, "rb").read()
    (n,) = struct.unpack_from("<Q", buf, 0)
    header = json.loads(buf[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    return {k: np.frombuffer(buf[base + v["data_offsets"][0]:base + v["data_offsets"][1]],
                             dtype="<f4").reshape(v["shape"]) for k, v in header.items()}


def numpy_forward(w, c, ids):
    """Independent fp64 implementation of the spec in the brief (batch 1)."""
    H, NH, NKV, L = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"]
    D, eps, S = H // NH, c["rms_norm_eps"], len(ids)
    g = {k: v.astype(np.float64) for k, v in w.items()}

    def rms(x, weight):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * weight

    inv_freq = 1.0 / c["rope_theta"] ** (np.arange(0, D, 2) / D)
    freqs = np.arange(S)[:, None] * inv_freq[None]
    emb = np.concatenate([freqs, freqs], -1)
    cos, sin = np.cos(emb), np.sin(emb)

    def rope(t):  # [heads, S, D]
        rot = np.concatenate([-t[..., D // 2:], t[..., :D // 2]], -1)
        return t * cos + rot * sin

    x = g["model.embed_tokens.weight"][ids]
    mask = np.triu(np.full((S, S), -np.inf), 1)
    for i in range(L):
        p = f"model.layers.{i}."
        h = rms(x, g[p + "input_layernorm.weight"])
        q = (h @ g[p + "self_attn.q_proj.weight"].T).reshape(S, NH, D).transpose(1, 0, 2)
        k = (h @ g[p + "self_attn.k_proj.weight"].T).reshape(S, NKV, D).transpose(1, 0, 2)
        v = (h @ g[p + "self_attn.v_proj.weight"].T).reshape(S, NKV, D).transpose(1, 0, 2)
        q, k = rope(q), rope(k)
        out = np.zeros((NH, S, D))
        for hh in range(NH):
            kv = hh // (NH // NKV)
            s = q[hh] @ k[kv].T / math.sqrt(D) + mask
            s = np.exp(s - s.max(-1, keepdims=True))
            out[hh] = (s / s.sum(-1, keepdims=True)) @ v[kv]
        x = x + out.transpose(1, 0, 2).reshape(S, NH * D) @ g[p + "self_attn.o_proj.weight"].T
        h2 = rms(x, g[p + "post_attention_layernorm.weight"])
        gate = h2 @ g[p + "mlp.gate_proj.weight"].T
        up = h2 @ g[p + "mlp.up_proj.weight"].T
        x = x + (gate / (1 + np.exp(-gate)) * up) @ g[p + "mlp.down_proj.weight"].T
    x = rms(x, g["model.norm.weight"])
    return x @ g["model.embed_tokens.weight"].T


@torch.no_grad()
def greedy(model, ids, n):
    ids = list(ids)
    for _ in range(n):  # full recompute every step, fp32
        ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    return ids


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default=os.path.join(OUT, "final.pt"))
    ap.add_argument("--no-eval", action="store_true", help="skip the train/val loss pass")
    args = ap.parse_args()
    torch.set_num_threads(CFG["train"]["torch_threads"])
    c = model_config()
    model = Llama(c)
    ck = torch.load(args.ckpt)
    model.load_state_dict(ck["model"])
    model.eval()

    tensors = {"model." + k: v.numpy() for k, v in model.state_dict().items()}
    path = os.path.join(OUT, "model.safetensors")
    write_safetensors(path, tensors, {"format": "pt", "architecture": "LlamaForCausalLM",
                                      "step": str(ck["step"])})
    back = read_safetensors(path)
    assert set(back) == set(tensors) and all(np.array_equal(back[k], tensors[k]) for k in back)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    print(f"wrote {path} ({os.path.getsize(path):,} bytes, {len(back)} tensors) sha256 {sha}")

    enc = Encoder(os.path.join(OUT, "tokenizer.json"))
    refs = []
    for text in REFERENCE_PROMPTS:
        ids = enc.encode(text)
        logits = model(torch.tensor([ids]))[0, -1]
        ref_np = numpy_forward(back, c, ids)[-1]
        diff = float(np.abs(ref_np - logits.double().numpy()).max())
        assert diff < 1e-3, f"numpy spec forward disagrees with torch: {diff}"
        out = greedy(model, ids, 24)
        refs.append({"prompt": ids, "tokens": out[len(ids):],
                     "first_logits": [float(x) for x in logits[:8]],
                     "prompt_text": text, "text": enc.decode(out[len(ids):]),
                     "numpy_spec_max_abs_diff": diff})
        print(json.dumps(refs[-1])[:300])
    json.dump({"note": "torch fp32, full recompute each step, position_ids 0..S-1. prompt: input ids; "
                       "tokens: 24 greedy tokens (no stopping at <|end|>); first_logits: logits[0, -1, :8] "
                       "of the prompt forward pass; numpy_spec_max_abs_diff: |torch - independent fp64 "
                       "NumPy forward from the safetensors file| over the prompt's last-position logits",
               "safetensors_sha256": sha, "cases": refs},
              open(os.path.join(OUT, "reference.json"), "w"), indent=1)

    if args.no_eval:
        return
    ctx = CFG["train"]["context"]
    val = load_tokens("val")
    train = load_tokens("train")
    vl, vn = evaluate(model, val, ctx, 8)
    tl, tn = evaluate(model, train[:len(val) * 4], ctx, 8)  # fixed train subset
    vmeta = json.load(open(os.path.join(OUT, "val.meta.json")))
    tmeta = json.load(open(os.path.join(OUT, "train.meta.json")))
    vbpb = vl * vmeta["tokens"] / vmeta["text_bytes"] / math.log(2)
    res = {"step": ck["step"], "context": ctx,
           "val_loss_nats_per_token": round(vl, 4), "val_tokens_scored": vn,
           "val_bits_per_byte": round(vbpb, 4),
           "train_loss_nats_per_token": round(tl, 4), "train_tokens_scored": tn,
           "train_bits_per_byte": round(tl * tmeta["tokens"] / tmeta["text_bytes"] / math.log(2), 4),
           "bits_per_byte_note": "nats/token * (split tokens / split UTF-8 text bytes, special tokens excluded) / ln 2; "
                                 "train loss is on the first 4x-val-size tokens of the (shuffled) training stream",
           "safetensors_sha256": sha}
    json.dump(res, open(os.path.join(OUT, "eval.json"), "w"), indent=2)
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()

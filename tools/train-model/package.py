"""Write the shipped model metadata into resources/models/ff-austen-mini/.

Copies tokenizer.json / tokenizer_config.json, writes config.json,
generation_config.json and training-record.json (from out/eval.json,
out/train-log.jsonl, out/corpus-stats.json and run-config.json).
The ONNX weights (onnx/) are produced separately by tools/onnx-llama.
"""
import hashlib
import json
import os
import platform
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
DEST = os.path.normpath(os.path.join(HERE, "..", "..", "resources", "models", "ff-austen-mini"))


def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    cfg = json.load(open(os.path.join(HERE, "run-config.json")))
    m = cfg["model"]
    tok = json.load(open(os.path.join(OUT, "tokenizer.json"), encoding="utf-8"))
    ids = {t["content"]: t["id"] for t in tok["added_tokens"]}
    os.makedirs(DEST, exist_ok=True)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(OUT, f), os.path.join(DEST, f))
    eos = [ids["<|end|>"], ids["<|endoftext|>"]]
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": m["vocab_size"],
        "hidden_size": m["hidden_size"],
        "intermediate_size": m["intermediate_size"],
        "num_hidden_layers": m["num_hidden_layers"],
        "num_attention_heads": m["num_attention_heads"],
        "num_key_value_heads": m["num_key_value_heads"],
        "head_dim": m["hidden_size"] // m["num_attention_heads"],
        "max_position_embeddings": m["max_position_embeddings"],
        "rms_norm_eps": m["rms_norm_eps"],
        "rope_theta": m["rope_theta"],
        "rope_scaling": None,
        "hidden_act": "silu",
        "attention_bias": False,
        "mlp_bias": False,
        "attention_dropout": 0.0,
        "initializer_range": 0.02,
        "pretraining_tp": 1,
        "tie_word_embeddings": m["tie_word_embeddings"],
        "use_cache": True,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": eos,
        "pad_token_id": ids["<|endoftext|>"],
        "torch_dtype": "float16",
    }
    gen = {"bos_token_id": ids["<|endoftext|>"], "eos_token_id": eos,
           "pad_token_id": ids["<|endoftext|>"], "max_new_tokens": 200, "do_sample": False}
    json.dump(config, open(os.path.join(OUT, "config.json"), "w"), indent=2)  # for tools/onnx-llama
    # tools/onnx-llama rewrites these two files when it writes onnx/; merge so
    # its extra keys survive a re-run of this script and ours win on conflicts.
    for name, ours in (("config.json", config), ("generation_config.json", gen)):
        p = os.path.join(DEST, name)
        merged = json.load(open(p)) if os.path.exists(p) else {}
        merged.update(ours)
        with open(p, "w") as f:
            json.dump(merged, f, indent=2)
            f.write("\n")
    if "--configs-only" in sys.argv:
        return

    ev = json.load(open(os.path.join(OUT, "eval.json")))
    log = [json.loads(l) for l in open(os.path.join(OUT, "train-log.jsonl"))]
    stats = json.load(open(os.path.join(OUT, "corpus-stats.json")))
    st = os.path.join(OUT, "model.safetensors")
    assert sha256(st) == ev["safetensors_sha256"]
    import torch
    record = {
        "model": "ff-austen-mini",
        "safetensors": {"path": "tools/train-model/out/model.safetensors", "sha256": ev["safetensors_sha256"],
                        "bytes": os.path.getsize(st), "dtype": "F32"},
        "parameters": None,  # filled below
        "final": {k: ev[k] for k in ("step", "context", "train_loss_nats_per_token", "train_tokens_scored",
                                     "train_bits_per_byte", "val_loss_nats_per_token", "val_tokens_scored", "val_bits_per_byte",
                                     "bits_per_byte_note")},
        "last_logged_train_batch_loss": log[-1]["loss"],
        "training_wall_clock_s": log[-1]["elapsed_s"],
        "mean_s_per_step": round(log[-1]["elapsed_s"] / log[-1]["step"], 3),
        "corpus": stats,
        "pins": cfg.get("pins"),
        "tokenizer_json_sha256": sha256(os.path.join(DEST, "tokenizer.json")),
        "run_config_sha256": sha256(os.path.join(HERE, "run-config.json")),
        "machine": {"cpu": cpu_model(), "torch_threads": cfg["train"]["torch_threads"],
                    "torch": torch.__version__, "python": platform.python_version(),
                    "os": platform.platform()},
        "eval_history": [{"step": r["step"], "val_loss": r["val_loss"]} for r in log if "val_loss" in r],
    }
    sd = torch.load(os.path.join(OUT, "final.pt"))["model"]
    record["parameters"] = int(sum(v.numel() for v in sd.values()))
    json.dump(record, open(os.path.join(DEST, "training-record.json"), "w"), indent=2)
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()

"""Check (or --write) the sha256 pins in run-config.json against out/.

Pinned: the exact training/validation text (out/train.txt, out/val.txt) and
the tokenizer (out/tokenizer.json). A mismatch means the corpus or tokenizer
differs from the released run.
"""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {"train_txt_sha256": "out/train.txt", "val_txt_sha256": "out/val.txt",
         "tokenizer_json_sha256": "out/tokenizer.json"}


def main():
    path = os.path.join(HERE, "run-config.json")
    cfg = json.load(open(path))
    got = {k: hashlib.sha256(open(os.path.join(HERE, f), "rb").read()).hexdigest() for k, f in FILES.items()}
    if "--write" in sys.argv:
        cfg["pins"] = got
        json.dump(cfg, open(path, "w"), indent=2)
        print("pins written", got)
        return
    bad = [k for k in FILES if cfg.get("pins", {}).get(k) != got[k]]
    for k in FILES:
        print(f"{'OK ' if k not in bad else 'BAD'} {k} {got[k]}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

"""Build the exact training/validation text from the janeaustenr package.

Output (tools/train-model/out/):
  train.txt, val.txt   concatenated documents; every document starts with
                       <|endoftext|>; chat documents are rendered exactly like
                       the chat template in tokenizer_config.json.
  corpus-stats.json    counts and sha256 of both files.

Deterministic: depends only on the janeaustenr data and run-config.json.
"""
import hashlib
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdata  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")
RDATA = "/usr/lib/R/site-library/janeaustenr/data/Rdata"
NOVELS = ["sensesensibility", "prideprejudice", "mansfieldpark", "emma",
          "northangerabbey", "persuasion"]
BOS = "<|endoftext|>"

SYSTEM_MESSAGES = [
    "You are a helpful assistant.",
    "You are a helpful assistant. Answer briefly.",
    "You are a character in a novel by Jane Austen.",
    "Reply in the manner of a Jane Austen heroine.",
    "You are a polite and witty conversationalist.",
    "Answer the question.",
    "Be brief.",
    "You are a gentleman of good fortune.",
    "You are a lady of good sense and quick wit.",
    "Continue the conversation.",
]


def paragraphs(lines):
    """Lines -> paragraphs (blank-line separated), italics marks removed."""
    out, cur = [], []
    for line in lines + [""]:
        line = line.strip()
        if line:
            cur.append(line)
        elif cur:
            p = " ".join(cur).replace("_", "")
            p = re.sub(r"  +", " ", p)
            if re.search(r"[A-Za-z]", p):  # drops "* * *" separators
                out.append(p)
            cur = []
    return out


def quoted(p):
    """Spoken text of a paragraph: the "..." segments joined, or None.

    A paragraph whose last quote is left open (speech continuing into the
    next paragraph) contributes everything after the opening mark.
    """
    if '"' not in p:
        return None
    parts = p.split('"')
    segs = [parts[i] for i in range(1, len(parts), 2)]
    segs = [s.strip() for s in segs if s.strip()]
    if not segs:
        return None
    text = segs[0]
    for s in segs[1:]:  # '"Arts," said he. "He only' -> 'Arts. He only'
        if text.endswith(",") and s[:1].isupper() and not s.startswith(("I ", "Mr", "Mrs", "Miss")):
            text = text[:-1] + "."
        text += " " + s
    text = re.sub(r"\s+([,;:.!?])", r"\1", text)
    text = re.sub(r"[,;:]\s*$", ".", text)  # "Well," said she. -> "Well."
    text = re.sub(r",\s*,", ",", text)
    return text if re.search(r"[A-Za-z]", text) else None


def render_chat(messages):
    """Exactly what the chat template renders (add_generation_prompt false)."""
    return BOS + "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages)


def conversations(paras, rng, offset):
    """Runs of consecutive speech paragraphs -> chat transcripts."""
    convs, run = [], []
    for p in paras + [""]:
        q = quoted(p) if p else None
        if q:
            run.append(q)
            continue
        run_ = run[offset:] if len(run) > offset + 1 else run
        i = 0
        while len(run_) - i >= 2:
            n = min(rng.choice([2, 2, 4, 4, 6]), (len(run_) - i) // 2 * 2)
            turns = run_[i:i + n]
            i += n
            msgs = []
            if rng.random() < 0.3:
                msgs.append({"role": "system", "content": rng.choice(SYSTEM_MESSAGES)})
            for k, t in enumerate(turns):
                msgs.append({"role": "user" if k % 2 == 0 else "assistant", "content": t})
            convs.append(render_chat(msgs))
        run = []
    return convs


def narrative(paras, max_chars):
    docs, cur = [], []
    for p in paras:
        cur.append(p)
        if sum(len(x) + 2 for x in cur) >= max_chars:
            docs.append(BOS + "\n\n".join(cur))
            cur = []
    if cur:
        docs.append(BOS + "\n\n".join(cur))
    return docs


def main():
    cfg = json.load(open(os.path.join(HERE, "run-config.json")))["data"]
    rng = random.Random(cfg["seed"])
    db = rdata.load_lazy_db(RDATA)
    train, val = [], []
    bs = cfg["block_paragraphs"]
    blocks = []
    for name in NOVELS:
        paras = paragraphs(db[name])
        blocks += [paras[b:b + bs] for b in range(0, len(paras), bs)]
    n_blocks = len(blocks)
    n_val_blocks = round(cfg["val_fraction"] * n_blocks)
    val_ids = set(rng.sample(range(n_blocks), n_val_blocks))
    for bi, block in enumerate(blocks):
        if True:
            is_val = bi in val_ids
            docs = narrative(block, cfg["narrative_doc_chars"])
            for pass_ in range(cfg["chat_passes"]):
                docs += conversations(block, rng, offset=pass_)
            (val if is_val else train).extend(docs)
    rng.shuffle(train)
    rng.shuffle(val)
    os.makedirs(OUT, exist_ok=True)
    stats = {"blocks": n_blocks, "val_blocks": n_val_blocks}
    for split, docs in (("train", train), ("val", val)):
        text = "".join(docs)
        data = text.encode("utf-8")
        with open(os.path.join(OUT, f"{split}.txt"), "wb") as f:
            f.write(data)
        chat = [d for d in docs if d.startswith(BOS + "<|")]
        stats[split] = {
            "docs": len(docs), "chat_docs": len(chat), "bytes": len(data),
            "chat_bytes": sum(len(d.encode()) for d in chat),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    json.dump(stats, open(os.path.join(OUT, "corpus-stats.json"), "w"), indent=2)
    print(json.dumps(stats, indent=2))


if __name__ == "__main__":
    main()

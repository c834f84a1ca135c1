"""Byte-level BPE: training, Hugging Face tokenizer.json export, and encoding.

The encoder reproduces the Hugging Face pipeline for the tokenizer.json we
write: split out added (special) tokens -> Split(PRETOKENIZE_REGEX, Isolated)
-> ByteLevel(use_regex=false) -> BPE by merge rank (lowest rank first,
leftmost on ties). verify_tokenizer.mjs checks this against
@huggingface/tokenizers.

usage: tokenizer.py train   (out/train.txt -> out/tokenizer.json)
       tokenizer.py encode  (out/{train,val}.txt -> out/{train,val}.bin, uint16)
       tokenizer.py dump    (out/tokenizer-check.json for verify_tokenizer.mjs)
"""
import hashlib
import heapq
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "out")

SPECIALS = ["<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"]
# Plain classes only (no \s, \p{..}, lookarounds) so Python re, Oniguruma and
# JavaScript agree; the four alternatives cover every character.
PRETOKENIZE_REGEX = r" ?[A-Za-z]+| ?[0-9]| ?[^A-Za-z0-9 \t\r\n]+|[ \t\r\n]+"
_pre = re.compile(PRETOKENIZE_REGEX)
_special_re = re.compile("(" + "|".join(re.escape(s) for s in SPECIALS) + ")")


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable unicode character map."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


B2U = bytes_to_unicode()
U2B = {v: k for k, v in B2U.items()}


def split_specials(text):
    """-> list of (is_special, piece), empty pieces dropped."""
    return [(p in SPECIALS, p) for p in _special_re.split(text) if p]


def pretokenize(piece):
    return ["".join(B2U[b] for b in w.encode("utf-8")) for w in _pre.findall(piece)]


def train(text, vocab_size):
    counts = Counter()
    for is_special, piece in split_specials(text):
        if not is_special:
            counts.update(pretokenize(piece))
    words = [list(w) for w in counts]
    freqs = list(counts.values())
    pair_count = defaultdict(int)
    where = defaultdict(set)
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_count[(a, b)] += freqs[i]
            where[(a, b)].add(i)
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    merges = []
    n_merges = vocab_size - len(SPECIALS) - 256
    while len(merges) < n_merges and heap:
        c, pair = heapq.heappop(heap)
        if -c != pair_count.get(pair, 0):
            continue  # stale entry
        if -c < 2:
            break
        merges.append(pair)
        a, b = pair
        new = a + b
        changed = set()
        for i in list(where[pair]):
            w, f = words[i], freqs[i]
            for x, y in zip(w, w[1:]):
                pair_count[(x, y)] -= f
                where[(x, y)].discard(i)
                changed.add((x, y))
            j, nw = 0, []
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    nw.append(new)
                    j += 2
                else:
                    nw.append(w[j])
                    j += 1
            words[i] = nw
            for x, y in zip(nw, nw[1:]):
                pair_count[(x, y)] += f
                where[(x, y)].add(i)
                changed.add((x, y))
        for p in changed:
            if pair_count[p] > 0:
                heapq.heappush(heap, (-pair_count[p], p))
            else:
                pair_count.pop(p, None)
                where.pop(p, None)
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for b in range(256):
        vocab[B2U[b]] = len(vocab)
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return vocab, merges


def tokenizer_json(vocab, merges):
    added = [{"id": vocab[s], "content": s, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": True} for s in SPECIALS]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": PRETOKENIZE_REGEX},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
             "use_regex": False},
        ]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                    "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }


CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}<|{{ message['role'] }}|>"
    "{{ message['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def tokenizer_config(vocab, model_max_length):
    return {
        "add_bos_token": False,
        "add_eos_token": False,
        "added_tokens_decoder": {
            str(vocab[s]): {"content": s, "lstrip": False, "normalized": False,
                            "rstrip": False, "single_word": False, "special": True}
            for s in SPECIALS},
        "additional_special_tokens": ["<|system|>", "<|user|>", "<|assistant|>"],
        "bos_token": "<|endoftext|>",
        "eos_token": "<|end|>",
        "pad_token": "<|endoftext|>",
        "unk_token": None,
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "chat_template": CHAT_TEMPLATE,
    }


class Encoder:
    def __init__(self, path):
        tj = json.load(open(path, encoding="utf-8"))
        self.vocab = tj["model"]["vocab"]
        self.inv = {i: s for s, i in self.vocab.items()}
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(tj["model"]["merges"])}
        self.special_ids = {t["content"]: t["id"] for t in tj["added_tokens"]}
        self.cache = {}

    def bpe(self, word):
        if word in self.cache:
            return self.cache[word]
        parts = list(word)
        while len(parts) > 1:
            best, bi = None, -1
            for i in range(len(parts) - 1):
                r = self.ranks.get((parts[i], parts[i + 1]))
                if r is not None and (best is None or r < best):
                    best, bi = r, i
            if best is None:
                break
            parts[bi:bi + 2] = [parts[bi] + parts[bi + 1]]
        ids = [self.vocab[p] for p in parts]
        self.cache[word] = ids
        return ids

    def encode(self, text):
        ids = []
        for is_special, piece in split_specials(text):
            if is_special:
                ids.append(self.special_ids[piece])
            else:
                for w in pretokenize(piece):
                    ids.extend(self.bpe(w))
        return ids

    def decode(self, ids):
        out, buf = [], bytearray()
        for i in ids:
            s = self.inv[i]
            if s in self.special_ids:
                out.append(buf.decode("utf-8", errors="replace"))
                buf = bytearray()
                out.append(s)
            else:
                buf.extend(U2B[c] for c in s)
        out.append(buf.decode("utf-8", errors="replace"))
        return "".join(out)


def sha256_file(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    cmd = sys.argv[1]
    tok_path = os.path.join(OUT, "tokenizer.json")
    if cmd == "train":
        cfg = json.load(open(os.path.join(HERE, "run-config.json")))["tokenizer"]
        text = open(os.path.join(OUT, "train.txt"), encoding="utf-8").read()
        vocab, merges = train(text, cfg["vocab_size"])
        with open(tok_path, "w", encoding="utf-8") as f:
            json.dump(tokenizer_json(vocab, merges), f, ensure_ascii=False, indent=1)
        with open(os.path.join(OUT, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump(tokenizer_config(vocab, cfg["model_max_length"]), f, indent=2)
        print(f"vocab {len(vocab)} merges {len(merges)} sha256 {sha256_file(tok_path)}")
    elif cmd == "encode":
        import numpy as np
        enc = Encoder(tok_path)
        for split in ("train", "val"):
            text = open(os.path.join(OUT, f"{split}.txt"), encoding="utf-8").read()
            ids = np.array(enc.encode(text), dtype=np.uint16)
            ids.tofile(os.path.join(OUT, f"{split}.bin"))
            nbytes = sum(len(p.encode()) for s, p in split_specials(text) if not s)
            print(f"{split}: {len(ids)} tokens, {nbytes} text bytes, "
                  f"{nbytes / len(ids):.3f} bytes/token")
            json.dump({"tokens": len(ids), "text_bytes": nbytes},
                      open(os.path.join(OUT, f"{split}.meta.json"), "w"))
    elif cmd == "dump":
        # ~2000 corpus lines + special-token strings + edge cases for the JS check
        import random
        enc = Encoder(tok_path)
        rng = random.Random(0)
        lines = open(os.path.join(OUT, "train.txt"), encoding="utf-8").read().split("\n")
        lines = [l for l in lines if l.strip()]
        samples = rng.sample(lines, 1900)
        samples += [
            "<|endoftext|><|system|>You are a helpful assistant.<|end|><|user|>Hello!<|end|><|assistant|>",
            "<|user|>What is 2+2?<|end|><|assistant|>Four.<|end|>",
            "text<|end|>more text<|endoftext|>",
            "<|end|><|end|>", "<|endoftext", "<|user|", "|>", "<|unknown|>",
            "Café déjà vu — naïve “quotes” ‘single’ … £5 €10 ¥",
            "emoji 😀👍🏽 and 中文字符 and עברית and русский",
            "tabs\tand\nnewlines\r\n\r\n  multiple   spaces  ",
            "   leading spaces", "trailing spaces   ", "", " ", "\n", "\n\n\n",
            "numbers 1234567890 3.14159 1,000,000 -42",
            "code: if (x == 1) { return y[0]; } // comment",
            "URL https://example.com/path?q=1&r=2#frag",
            "MiXeD CaSe WoRdS and ALLCAPS and lowercase",
            "don't can't won't I'm you're it's o'clock",
            "\u00a0non-breaking\u00a0space\u2003em\u2009thin\x0bvt\x0cff",
            "\x00\x01\x1c\x1d\x1e\x1f\x7f\x85 control chars",
            "Mr. Darcy said, \"It is a truth universally acknowledged...\"",
            "--dashes--and---more----", "'''\"\"\"!!!???...;;;:::",
        ]
        samples += [rng.choice(lines)[:rng.randint(1, 60)] for _ in range(80)]
        cases = [{"text": s, "ids": enc.encode(s)} for s in samples]
        for c in cases:
            assert enc.decode(c["ids"]) == c["text"], c
        chats = []
        convs = [
            [{"role": "user", "content": "Hello!"}],
            [{"role": "system", "content": "You are a helpful assistant."},
             {"role": "user", "content": "How do you do?"},
             {"role": "assistant", "content": "Very well, I thank you."},
             {"role": "user", "content": "And your sister?"}],
        ]
        for msgs in convs:
            for gen in (False, True):
                text = SPECIALS[0] + "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in msgs)
                text += "<|assistant|>" if gen else ""
                chats.append({"messages": msgs, "add_generation_prompt": gen,
                              "text": text, "ids": enc.encode(text)})
        json.dump({"cases": cases, "chats": chats},
                  open(os.path.join(OUT, "tokenizer-check.json"), "w"))
        print(f"dumped {len(cases)} cases")


if __name__ == "__main__":
    main()

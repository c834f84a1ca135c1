#!/usr/bin/env bash
# Reproduce ff-austen-mini from scratch: corpus -> tokenizer -> data -> train
# -> weights -> model folder. Run from anywhere: bash tools/train-model/make.sh
# Takes ~60-75 min on 2 CPU cores (training is ~95% of it).
# Env: PY (default /usr/bin/python3, needs torch + numpy), SKIP_TRAIN=1 to reuse
# out/final.pt, SKIP_ONNX=1 to stop before the ONNX conversion.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${PY:-/usr/bin/python3}"
MODEL_DIR="$ROOT/resources/models/ff-austen-mini"
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE
cd "$HERE"
mkdir -p out

echo "== 1/7 corpus (janeaustenr -> out/train.txt, out/val.txt)"
"$PY" prepare.py
echo "== 2/7 tokenizer (byte-level BPE -> out/tokenizer.json) and token ids"
"$PY" tokenizer.py train
"$PY" tokenizer.py encode
"$PY" tokenizer.py dump
echo "== 3/7 pins (corpus + tokenizer sha256 vs run-config.json)"
"$PY" pins.py
echo "== 4/7 train (log: out/train.log)"
if [[ "${SKIP_TRAIN:-0}" != 1 ]]; then
  rm -f out/ckpt.pt out/train-log.jsonl
  "$PY" train.py | tee out/train.log
fi
echo "== 5/7 export (out/model.safetensors, out/reference.json, out/eval.json) + samples"
"$PY" export.py
"$PY" sample.py --out out/samples.json
echo "== 6/7 package (resources/models/ff-austen-mini metadata) + JS tokenizer check"
"$PY" package.py
(cd "$ROOT" && node tools/train-model/verify_tokenizer.mjs)
if [[ "${SKIP_ONNX:-0}" == 1 ]]; then exit 0; fi
echo "== 7/7 ONNX (tools/onnx-llama, fp16) + check against torch's reference"
cd "$ROOT"
npx tsx tools/onnx-llama/cli.ts from-safetensors --weights tools/train-model/out/model.safetensors \
  --config tools/train-model/out/config.json --out "$MODEL_DIR" --dtype float16 \
  --tokenizer-from "$MODEL_DIR"
npx tsx tools/onnx-llama/check-reference.ts --dtype float32
# the quantized variants (their sha256 in variants.json changes with the weights)
npx tsx tools/onnx-llama/cli.ts quantize --model "$MODEL_DIR" --bits 4
npx tsx tools/onnx-llama/cli.ts quantize --model "$MODEL_DIR" --bits 8
# the converter rewrites config.json / generation_config.json: merge ours back in
(cd "$HERE" && "$PY" package.py > /dev/null)
ls -l "$MODEL_DIR" "$MODEL_DIR/onnx"

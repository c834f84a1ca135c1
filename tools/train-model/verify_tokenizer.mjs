// Checks that @huggingface/tokenizers (what the app uses) encodes exactly like
// tools/train-model/tokenizer.py, decodes back losslessly, and that the chat
// template renders (via @huggingface/jinja) like the training data.
// usage (from the repo root): node tools/train-model/verify_tokenizer.mjs [modelDir] [checkJson]
import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { Template } from '@huggingface/jinja';

const modelDir = process.argv[2] ?? 'resources/models/ff-austen-mini';
const checkPath = process.argv[3] ?? 'tools/train-model/out/tokenizer-check.json';
const tokenizerJson = JSON.parse(readFileSync(`${modelDir}/tokenizer.json`, 'utf8'));
const tokenizerConfig = JSON.parse(readFileSync(`${modelDir}/tokenizer_config.json`, 'utf8'));
const { cases, chats } = JSON.parse(readFileSync(checkPath, 'utf8'));
const tok = new Tokenizer(tokenizerJson, tokenizerConfig);

let fail = 0;
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
for (const { text, ids } of cases) {
  const got = tok.encode(text).ids;
  if (!same(got, ids)) {
    if (fail++ < 10)
      console.error(
        'ENCODE MISMATCH',
        JSON.stringify(text),
        '\n  py:',
        ids.join(','),
        '\n  js:',
        got.join(','),
      );
    continue;
  }
  if (ids.length > 0) {
    const back = tok.decode(ids, { skip_special_tokens: false });
    if (back !== text && fail++ < 10)
      console.error('DECODE MISMATCH', JSON.stringify(text), JSON.stringify(back));
  }
}
const template = new Template(tokenizerConfig.chat_template);
for (const c of chats) {
  const text = template.render({
    messages: c.messages,
    add_generation_prompt: c.add_generation_prompt,
    bos_token: tokenizerConfig.bos_token,
    eos_token: tokenizerConfig.eos_token,
  });
  if (text !== c.text) {
    fail++;
    console.error('TEMPLATE MISMATCH', JSON.stringify(text), JSON.stringify(c.text));
  } else if (!same(tok.encode(text).ids, c.ids)) {
    fail++;
    console.error('CHAT ENCODE MISMATCH', JSON.stringify(text));
  }
}
const total = cases.length + chats.length;
console.log(
  `${total - fail}/${total} cases match (${cases.length} encode+decode, ${chats.length} chat template)`,
);
process.exit(fail === 0 ? 0 : 1);

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { TextTokenizer } from '../../../../src-main/runtime/tokenize/tokenizer';
import {
  MAX_TOKEN_ID_ROWS,
  RememberedTokenIds,
  TOKEN_IDS_CODE_REVISION,
  tokenIdsKeyOf,
} from '../../../../src-main/runtime/tokenize/remembered-token-ids';
import { openSqliteHistory } from '../../../../src-main/history/history';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';
import { useTempDirs } from '../../history/temp-dir';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const readJson = (name: string) =>
  JSON.parse(readFileSync(path.join(FOLDER, name), 'utf8')) as Record<string, unknown>;
const files = {
  tokenizerJson: readJson('tokenizer.json'),
  tokenizerConfig: readJson('tokenizer_config.json'),
};
const whole = new Tokenizer(files.tokenizerJson, files.tokenizerConfig);
const wholeEncode = (text: string) => whole.encode(text, { add_special_tokens: false }).ids;
const HISTORY = Array.from(
  { length: 40 },
  (_, i) => `Letter ${i}: she wrote of the ball and the weather.`,
).join(' ');

describe('RememberedTokenIds', () => {
  const tempDir = useTempDirs();
  const noWarn = (message: string) => expect.fail(message);

  /** A tokenizer as a fresh process has it, backed by the history at `file` under `revision`. */
  function restarted(file: string, revision: string) {
    const history = openSqliteHistory(file);
    const remembered = new RememberedTokenIds(history.tokenPieces!, tokenIdsKeyOf(revision), () => 1, noWarn);
    const tokenizer = new TextTokenizer(files);
    expect(tokenizer.rememberPiecesIn(remembered)).toBe(true);
    return { history, remembered, tokenizer };
  }

  it('gives a restarted tokenizer the ids of text it never encoded, equal to encoding it', () => {
    const file = path.join(tempDir(), 'history.sqlite');
    const first = restarted(file, 'tok-a');
    first.tokenizer.encode(HISTORY);
    first.remembered.flush();
    first.history.close();

    const second = restarted(file, 'tok-a');
    expect(second.tokenizer.numUncachedChars(HISTORY)).toBe(0);
    const next = `${HISTORY} And what did he answer?`;
    expect(second.tokenizer.numUncachedChars(next)).toBeLessThan(600);
    expect(second.tokenizer.encode(next)).toEqual(wholeEncode(next));
    second.remembered.flush();
    second.history.close();
  });

  it('hands its remembered pieces to the tokenizer thread, which then encodes only the new text', () => {
    const file = path.join(tempDir(), 'history.sqlite');
    const first = restarted(file, 'tok-a');
    first.tokenizer.encode(HISTORY);
    first.remembered.flush();
    first.history.close();

    const serving = restarted(file, 'tok-a');
    const next = `${HISTORY} And what did he answer?`;
    const held = serving.tokenizer.heldPieces(next);
    expect(held.reduce((sum, [text]) => sum + text.length, 0)).toBeGreaterThan(next.length - 600);
    const thread = new TextTokenizer(files); // the tokenizer thread's own instance, nothing cached
    expect(thread.numUncachedChars(next)).toBe(next.length);
    thread.rememberPieces(held);
    expect(thread.numUncachedChars(next)).toBeLessThan(600);
    expect(thread.encode(next)).toEqual(wholeEncode(next));
    serving.remembered.flush();
    serving.history.close();
  });

  it('never uses ids written under another tokenizer revision', () => {
    const file = path.join(tempDir(), 'history.sqlite');
    const first = restarted(file, 'tok-a');
    // Ids that are wrong for this text: were they ever used, the encode below would differ.
    first.remembered.keep(HISTORY.slice(0, 200), false, [1, 2, 3]);
    first.remembered.flush();
    first.history.close();

    const other = restarted(file, 'tok-b');
    expect(other.remembered.find(HISTORY.slice(0, 200), false)).toBeNull();
    expect(other.tokenizer.encode(HISTORY)).toEqual(wholeEncode(HISTORY));
    other.remembered.flush();
    other.history.close();
  });

  it('finds nothing for an edited message or the same text read another way', () => {
    const file = path.join(tempDir(), 'history.sqlite');
    const first = restarted(file, 'tok-a');
    first.remembered.keep('The garden was quiet that evening, and nobody spoke of the letter.', false, [7]);
    first.remembered.flush();
    first.history.close();

    const second = restarted(file, 'tok-a');
    expect(
      second.remembered.find('The garden was quiet that evening, and nobody spoke of the letter.', false),
    ).toEqual([7]);
    expect(
      second.remembered.find('The garden was quiet that evening, and nobody spoke of the letter!', false),
    ).toBeNull();
    expect(
      second.remembered.find('The garden was quiet that evening, and nobody spoke of the letter.', true),
    ).toBeNull();
    second.remembered.flush();
    second.history.close();
  });

  it('keeps at most the newest rows, and forgets by tokenizer or all', () => {
    const history = openSqliteHistory(path.join(tempDir(), 'history.sqlite'));
    const rows = history.tokenPieces!;
    const row = (textKey: string, at: number, key = 'a') => ({
      tokenizerKey: key,
      textKey,
      tokenIds: Int32Array.of(at),
      lastUsedWallMs: at,
    });
    rows.insert([row('old', 1), row('mid', 2), row('new', 3)], 2);
    expect(rows.find('a', 'old')).toBeNull();
    expect(Array.from(rows.find('a', 'new')!)).toEqual([3]);
    rows.insert([row('other', 4, 'b')], MAX_TOKEN_ID_ROWS);
    expect(rows.forget(['a'])).toBe(2);
    expect(rows.find('b', 'other')).not.toBeNull();
    expect(rows.forget(null)).toBe(1);
    history.close();
  });

  it('names the tokenizer library version the app pins, so an upgrade finds none of the old ids', () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const pinned = pkg.dependencies['@huggingface/tokenizers'];
    expect(TOKEN_IDS_CODE_REVISION).toContain(`@huggingface/tokenizers@${pinned}`);
  });
});

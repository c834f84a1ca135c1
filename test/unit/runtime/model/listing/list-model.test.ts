import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_LIMITS } from '../../../../../src-main/runtime/tokenize/chat-template';
import { listModel, longConversationProblem } from '../../../../../src-main/runtime/model/listing/list-model';
import { TextTokenizer } from '../../../../../src-main/runtime/tokenize/tokenizer';
import { readTokenizerFiles } from '../../../../../src-main/runtime/tokenize/tokenizer-files';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../../support/models';

const BUNDLED = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);

/**
 * Looks at the whole history four times per message: a short chat takes a few dozen steps, a
 * 200-message one 160,000 (each look counts the history's messages), over the budget.
 */
const SLOW_PER_MESSAGE =
  '{% for m in messages %}{% if messages and messages and messages and messages %}' +
  '{{ m.role }}: {{ m.content }}\n{% endif %}{% endfor %}assistant:';

describe('the chat template budget per request, checked at listing', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ff-list-model-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the bundled model: its template renders a 200-message conversation within the budget', () => {
    const tokenizer = new TextTokenizer(readTokenizerFiles(BUNDLED));
    expect(longConversationProblem(tokenizer)).toBeNull();
  });

  it('refuses a folder whose template passes the short test render but is over budget for 200 messages', () => {
    const folder = path.join(dir, 'slow-template');
    cpSync(BUNDLED, folder, { recursive: true });
    writeFileSync(path.join(folder, 'chat_template.jinja'), SLOW_PER_MESSAGE);
    expect(
      listModel({ id: 1, kind: 'folder', path: folder, convertedDir: null, defaultSampling: null }),
    ).toEqual({
      status: 'broken',
      problem:
        `${folder}: chat template is over the budget one request may take: rendering a 200-message ` +
        `conversation took more than ${TEMPLATE_LIMITS.maxSampleSteps} steps`,
    });
  });
});

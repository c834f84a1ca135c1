import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TextTokenizer } from '../../../../src-main/runtime/tokenize/tokenizer';
import type { ChatTurn } from '../../../../src-main/runtime/tokenize/tokenizer';
import { ChatTemplate, TEMPLATE_LIMITS } from '../../../../src-main/runtime/tokenize/chat-template';
import { BUNDLED_MODEL_ID, BUNDLED_MODELS_DIR } from '../../../support/models';

const FOLDER = path.join(BUNDLED_MODELS_DIR, BUNDLED_MODEL_ID);
const readJson = (name: string) =>
  JSON.parse(readFileSync(path.join(FOLDER, name), 'utf8')) as Record<string, unknown>;
const bundled = new TextTokenizer({
  tokenizerJson: readJson('tokenizer.json'),
  tokenizerConfig: readJson('tokenizer_config.json'),
});

/** A conversation of `numMessages` turns, user and assistant alternating, system first. */
function conversation(numMessages: number): ChatTurn[] {
  return Array.from({ length: numMessages }, (_, i) => ({
    role: i === 0 ? 'system' : i % 2 === 1 ? 'user' : 'assistant',
    content: `Message ${i}: it is a truth universally acknowledged, that a single man must be in want of a wife.`,
  }));
}

/** A loop over the serving thread's steps at once (an array's items count), within the render's. */
const LONG_LOOP = `{% for i in range(${TEMPLATE_LIMITS.inlineSteps}) %}{% endfor %}`;
const items = { messages: [{ role: 'user', content: 'Hi' }], add_generation_prompt: true };

describe('a chat template on the serving thread', () => {
  it('renders a 200-message conversation through the bundled template within the serving-thread steps', () => {
    const source = bundled.templateSource!;
    const chat = bundled.chatInput(conversation(200));
    const startMs = performance.now();
    // Steps only (the time backstop is the render's whole 2 s): what the template costs, not the machine.
    const text = ChatTemplate.parse(source).render(chat.items, chat.inputChars, TEMPLATE_LIMITS.inlineSteps);
    const elapsedMs = performance.now() - startMs;
    expect(text).toBe(bundled.renderChat(conversation(200)).text);
    console.log(
      `200 messages through the bundled template: ${elapsedMs.toFixed(1)} ms, within ${TEMPLATE_LIMITS.inlineSteps} steps`,
    );
  });

  it('renders inline what fits the budget, exactly as a whole render does', () => {
    const source = '{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}';
    const template = ChatTemplate.parse(source);
    expect(template.renderInline(items, 2)).toBe(template.render(items, 2));
  });

  it('hands a template over the steps budget on (null), and every later render without trying', () => {
    let numProbes = 0;
    const probed = { ...items, probe: () => ++numProbes && '' };
    const template = ChatTemplate.parse(`{{ probe() }}${LONG_LOOP}{{ messages[0].content }}`);
    expect(template.renderInline(probed, 2)).toBeNull();
    expect(numProbes).toBe(1);
    expect(template.renderInline(probed, 2)).toBeNull();
    expect(numProbes).toBe(1);
    expect(template.render(probed, 2)).toBe('Hi');
  });

  it('tries inline again once the thread found a render within the steps, and not when it did not', () => {
    let numProbes = 0;
    const probed = { ...items, probe: () => ++numProbes && '' };
    const template = ChatTemplate.parse(`{{ probe() }}${LONG_LOOP}`);
    expect(template.renderInline(probed, 2)).toBeNull();
    template.noteThreadRender(template.renderCounted(probed, 2).numSteps);
    expect(template.renderInline(probed, 2)).toBeNull();
    expect(numProbes).toBe(2); // the inline try, the thread's render: no second try
    // A render cut off by time on a busy machine: the thread's steps fit, so inline it is again.
    // (On a loaded machine the inline try's 10 ms can run out before it reaches probe(): each
    // such try marks the template over budget again, so the thread's render is noted before each.)
    for (let attempt = 0; attempt < 5 && numProbes === 2; attempt++) {
      template.noteThreadRender(TEMPLATE_LIMITS.inlineSteps);
      expect(template.renderInline(probed, 2)).toBeNull();
    }
    expect(numProbes).toBe(3);
  });

  it('still refuses a failing template inline rather than handing it on', () => {
    const template = ChatTemplate.parse("{{ raise_exception('no system turns') }}");
    expect(() => template.renderInline(items, 2)).toThrow(/raised: no system turns/);
  });
});

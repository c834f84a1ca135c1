import { describe, expect, it } from 'vitest';
import {
  ChatTemplate,
  TEMPLATE_LIMITS,
  TemplateError,
} from '../../../../src-main/runtime/tokenize/chat-template';

const render = (source: string, messages: Array<{ role: string; content: string }> = []) =>
  ChatTemplate.parse(source).render({ messages, add_generation_prompt: true }, 0);

describe('chat template rendering is bounded', () => {
  it('renders an ordinary template as @huggingface/jinja does', () => {
    const source =
      '{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}';
    expect(render(source, [{ role: 'user', content: ' Hi ' }])).toBe('<|user|>Hi<|assistant|>');
  });

  it('stops a range() too large to build', () => {
    expect(() => render('{% for i in range(500000) %}x{% endfor %}')).toThrow(
      /range\(\) of 500000 items is over the limit of 10000/,
    );
  });

  it('stops nested loops by step count, well before they would end', () => {
    const startMs = performance.now();
    expect(() =>
      render('{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}'),
    ).toThrow(TemplateError);
    console.log(`nested loops stopped after ${(performance.now() - startMs).toFixed(0)} ms`);
  });

  it('stops a string that doubles every iteration before it exhausts memory', () => {
    const source =
      "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}";
    expect(() => render(source)).toThrow(/produced more than \d+ characters of text/);
  });

  it('stops huge integers (widths, counts) before a filter allocates them', () => {
    expect(() => render("{{ 'x' | indent(10000000 * 100) }}")).toThrow(/over the limit of 1000000/);
  });

  it('reports a bad filter and raise_exception as template errors with their reason', () => {
    expect(() => render('{{ messages | frobnicate }}')).toThrow(/failed to render \(.*frobnicate/);
    expect(() => render("{{ raise_exception('roles must alternate') }}")).toThrow(
      /raised: roles must alternate/,
    );
    expect(() => ChatTemplate.parse('{% for %}')).toThrow(/cannot be parsed/);
  });

  it('names its bounds in one place', () => {
    expect(TEMPLATE_LIMITS).toMatchObject({ maxSteps: expect.any(Number), maxMs: expect.any(Number) });
  });
});

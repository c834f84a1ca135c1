import { Environment, Interpreter, Template } from '@huggingface/jinja';

/**
 * Bounds on one chat-template render. A template is code from a downloaded folder: a loop over
 * `range(100000000)` or a string doubled in a loop must end in a clear error, not freeze or
 * exhaust the serving thread. Named here, in one place.
 */
export const TEMPLATE_LIMITS = {
  /** Interpreter steps per render: AST evaluations plus the items of every array a loop may walk. */
  maxSteps: 1_000_000,
  /**
   * Steps the listing's test render of a long conversation (LISTING_BUDGET.numSampleMessages
   * messages) may take: a template that needs more would hold every request to its model that
   * long. About 50× the bundled model's template, and twice a template that walks the whole
   * history for each message (Qwen3's).
   */
  maxSampleSteps: 100_000,
  /**
   * Wall time per render, checked at every step: a backstop only (steps bound the work). Generous,
   * since a normal template on a machine busy with other work must never be called broken.
   */
  maxMs: 2_000,
  /**
   * Steps a render may take on the serving thread (TextTokenizer.renderChatInline): past it the
   * render is abandoned and done again in the template thread, so one request's template never
   * holds the others. A 200-message conversation through the bundled model's template takes
   * under 4,000 (test/unit/runtime/tokenize/chat-template-inline.test.ts).
   */
  inlineSteps: 10_000,
  /**
   * Wall time a render may take on the serving thread (ms), checked at every step: the same
   * hand-off, for a template whose few steps are slow (or a busy machine).
   */
  inlineMs: 10,
  /** Items one `range()` may produce. */
  maxRangeItems: 10_000,
  /** Largest integer a template may compute (widths, counts). */
  maxInteger: 1_000_000,
  /** Characters of strings produced over a render: this plus 8× the messages' characters. */
  baseStringChars: 1_000_000,
} as const;

/** A chat template that exceeded a bound or failed; the message says which and is shown to the user. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** The work one render may do: interpreter steps and wall time (ms), the latter a backstop. */
export interface RenderBudget {
  maxSteps: number;
  maxMs: number;
}

/** A render that ran past its RenderBudget (a TemplateError, so callers that only bound it see one). */
export class TemplateOverBudget extends TemplateError {
  constructor(
    /** Which part of the budget ran out. */
    readonly bound: 'steps' | 'time',
    message: string,
  ) {
    super(message);
    this.name = 'TemplateOverBudget';
  }
}

/** A parsed chat template whose renders are bounded by TEMPLATE_LIMITS. */
export class ChatTemplate {
  /**
   * Set once a render ran past the serving thread's budget: the template's later renders go
   * straight to the template thread, so a slow template costs the serving thread once. Cleared
   * when the thread finds a render within the budget's steps (noteThreadRender): the time ran out
   * on a busy machine, not in the template.
   */
  private isOverInlineBudget = false;

  private constructor(
    /** The template's text: the template thread parses its own copy from it. */
    readonly source: string,
    private readonly parsed: Template['parsed'],
  ) {}

  /** Parses a template; throws TemplateError on a syntax error. */
  static parse(source: string): ChatTemplate {
    try {
      return new ChatTemplate(source, new Template(source).parsed);
    } catch (error) {
      throw new TemplateError(`cannot be parsed (${(error as Error).message})`);
    }
  }

  /**
   * Renders with the given variables; throws TemplateError on any failure or exceeded bound
   * (`maxSteps`: TEMPLATE_LIMITS.maxSteps unless a caller bounds the render tighter).
   */
  render(
    items: Record<string, unknown>,
    inputChars: number,
    maxSteps: number = TEMPLATE_LIMITS.maxSteps,
  ): string {
    return this.renderCounted(items, inputChars, maxSteps).text;
  }

  /** `render`, with the interpreter steps it took (the template thread reports them: noteThreadRender). */
  renderCounted(
    items: Record<string, unknown>,
    inputChars: number,
    maxSteps: number = TEMPLATE_LIMITS.maxSteps,
  ): { text: string; numSteps: number } {
    return this.renderWithin(items, inputChars, { maxSteps, maxMs: TEMPLATE_LIMITS.maxMs });
  }

  /**
   * What a render in the template thread took: within the serving thread's steps, later renders
   * are tried inline again; past them, they keep going to the thread.
   */
  noteThreadRender(numSteps: number): void {
    this.isOverInlineBudget = numSteps > TEMPLATE_LIMITS.inlineSteps;
  }

  /**
   * Renders within the serving thread's budget (TEMPLATE_LIMITS.inlineSteps, inlineMs); null
   * when it would take more (then for every later call too, without rendering, until
   * noteThreadRender says otherwise): the caller renders it in the template thread. Any other
   * failure throws TemplateError.
   */
  renderInline(items: Record<string, unknown>, inputChars: number): string | null {
    if (this.isOverInlineBudget) return null;
    const budget = { maxSteps: TEMPLATE_LIMITS.inlineSteps, maxMs: TEMPLATE_LIMITS.inlineMs };
    try {
      return this.renderWithin(items, inputChars, budget).text;
    } catch (error) {
      if (!(error instanceof TemplateOverBudget)) throw error;
      this.isOverInlineBudget = true;
      return null;
    }
  }

  private renderWithin(
    items: Record<string, unknown>,
    inputChars: number,
    budget: RenderBudget,
  ): { text: string; numSteps: number } {
    const env = new Environment();
    for (const [key, value] of Object.entries({ ...GLOBALS, ...items })) env.set(key, value);
    const maxStringChars = TEMPLATE_LIMITS.baseStringChars + 8 * inputChars;
    const interpreter = new BoundedInterpreter(env, maxStringChars, budget);
    try {
      const result = interpreter.run(this.parsed) as { value: unknown };
      return { text: String(result.value), numSteps: interpreter.numSteps };
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      throw new TemplateError(`failed to render (${(error as Error).message})`);
    }
  }
}

/** Counts every evaluation and checks time, integers and produced string size as it goes. */
class BoundedInterpreter extends Interpreter {
  /** Steps taken so far. */
  numSteps = 0;
  private numStringChars = 0;
  private readonly startMs = performance.now();

  constructor(
    env: Environment,
    private readonly maxStringChars: number,
    private readonly budget: RenderBudget,
  ) {
    super(env);
  }

  override evaluate(statement: Parameters<Interpreter['evaluate']>[0], environment: Environment) {
    this.step(1);
    const value = super.evaluate(statement, environment);
    const raw = (value as { value?: unknown }).value;
    if (typeof raw === 'string') {
      this.numStringChars += raw.length;
      if (this.numStringChars > this.maxStringChars)
        throw new TemplateError(`produced more than ${this.maxStringChars} characters of text`);
    } else if (Array.isArray(raw)) {
      // A loop runs over arrays without evaluating anything per item when its body is empty:
      // every item of every array counts as a step, so nested loops are bounded too.
      this.step(raw.length);
    } else if (
      typeof raw === 'number' &&
      Number.isInteger(raw) &&
      Math.abs(raw) > TEMPLATE_LIMITS.maxInteger
    ) {
      throw new TemplateError(`computed the integer ${raw}, over the limit of ${TEMPLATE_LIMITS.maxInteger}`);
    }
    return value;
  }

  private step(count: number): void {
    this.numSteps += count;
    const { maxSteps, maxMs } = this.budget;
    if (this.numSteps > maxSteps)
      throw new TemplateOverBudget('steps', `took more than ${maxSteps} steps (a runaway loop?)`);
    if (performance.now() - this.startMs > maxMs)
      throw new TemplateOverBudget('time', `took longer than ${maxMs} ms to render`);
  }
}

/** The globals @huggingface/jinja's Template.render sets, with `range` bounded. */
const GLOBALS: Record<string, unknown> = {
  false: false,
  true: true,
  none: null,
  False: false,
  True: true,
  None: null,
  raise_exception: (message: unknown) => {
    throw new TemplateError(`raised: ${String(message)}`);
  },
  range: boundedRange,
  strftime_now: (format: unknown) => strftime(new Date(), String(format)),
};

function boundedRange(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new TemplateError('range() step must not be zero');
  const count = Math.max(0, Math.ceil((to - from) / step));
  if (count > TEMPLATE_LIMITS.maxRangeItems)
    throw new TemplateError(
      `range() of ${count} items is over the limit of ${TEMPLATE_LIMITS.maxRangeItems}`,
    );
  return Array.from({ length: count }, (_, i) => from + i * step);
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The strftime codes chat templates use for "today's date". */
function strftime(date: Date, format: string): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return format.replace(/%[YmdbBHM%]/g, (code) => {
    switch (code) {
      case '%Y':
        return String(date.getFullYear());
      case '%m':
        return pad(date.getMonth() + 1);
      case '%d':
        return pad(date.getDate());
      case '%b':
        return MONTHS[date.getMonth()]!.slice(0, 3);
      case '%B':
        return MONTHS[date.getMonth()]!;
      case '%H':
        return pad(date.getHours());
      case '%M':
        return pad(date.getMinutes());
      default:
        return '%';
    }
  });
}

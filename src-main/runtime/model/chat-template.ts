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

/** A parsed chat template whose renders are bounded by TEMPLATE_LIMITS. */
export class ChatTemplate {
  private constructor(private readonly parsed: Template['parsed']) {}

  /** Parses a template; throws TemplateError on a syntax error. */
  static parse(source: string): ChatTemplate {
    try {
      return new ChatTemplate(new Template(source).parsed);
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
    const env = new Environment();
    for (const [key, value] of Object.entries({ ...GLOBALS, ...items })) env.set(key, value);
    const maxStringChars = TEMPLATE_LIMITS.baseStringChars + 8 * inputChars;
    const interpreter = new BoundedInterpreter(env, maxStringChars, maxSteps);
    try {
      const result = interpreter.run(this.parsed) as { value: unknown };
      return String(result.value);
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      throw new TemplateError(`failed to render (${(error as Error).message})`);
    }
  }
}

/** Counts every evaluation and checks time, integers and produced string size as it goes. */
class BoundedInterpreter extends Interpreter {
  private numSteps = 0;
  private numStringChars = 0;
  private readonly startMs = performance.now();

  constructor(
    env: Environment,
    private readonly maxStringChars: number,
    private readonly maxSteps: number,
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
    if (this.numSteps > this.maxSteps)
      throw new TemplateError(`took more than ${this.maxSteps} steps (a runaway loop?)`);
    if (performance.now() - this.startMs > TEMPLATE_LIMITS.maxMs)
      throw new TemplateError(`took longer than ${TEMPLATE_LIMITS.maxMs} ms to render`);
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

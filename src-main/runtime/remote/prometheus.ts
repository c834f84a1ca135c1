/** One sample of Prometheus' text exposition format: `name{label="v",…} value`. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/g;

/**
 * Parses Prometheus' text format (version 0.0.4, what vLLM's `/metrics` serves). Comment and
 * blank lines are skipped; a line that is not a sample is an Error naming its line number.
 */
export function parsePrometheus(text: string): PromSample[] | Error {
  const samples: PromSample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    const value = match ? parseValue(match[4]!) : null;
    if (!match || value === null)
      return new Error(`metrics line ${i + 1} is not a sample: ${line.slice(0, 80)}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[3] ?? ''), value });
  }
  return samples;
}

function parseValue(text: string): number | null {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? null : value;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(LABEL))
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  return labels;
}

/** A histogram's cumulative buckets (upper bound → count), count and sum, summed over series. */
export interface PromHistogram {
  buckets: Map<number, number>;
  count: number;
  sum: number;
}

/**
 * The histogram `name` from samples, summed over every series whose labels include `match`
 * (e.g. one `model_name` across several engines), or null when the server exposes none.
 */
export function histogramOf(
  samples: readonly PromSample[],
  name: string,
  match: Record<string, string> = {},
): PromHistogram | null {
  const fits = (s: PromSample) => Object.entries(match).every(([k, v]) => s.labels[k] === v);
  const histogram: PromHistogram = { buckets: new Map(), count: 0, sum: 0 };
  let isFound = false;
  for (const s of samples) {
    if (!fits(s)) continue;
    if (s.name === `${name}_bucket`) {
      const le = parseValue(s.labels['le'] ?? '');
      if (le === null) continue;
      histogram.buckets.set(le, (histogram.buckets.get(le) ?? 0) + s.value);
    } else if (s.name === `${name}_count`) histogram.count += s.value;
    else if (s.name === `${name}_sum`) histogram.sum += s.value;
    else continue;
    isFound = true;
  }
  return isFound ? histogram : null;
}

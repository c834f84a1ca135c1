// The split of one ONNX Runtime session build, read from its verbose log's timestamps: reading
// the graph, constant folding (the converted graph's scales widened to float32), the other
// optimizer passes, placing the initializers, and what follows up to "Session successfully
// initialized" (MatMulNBits and MatMul pre-packing their weights, most of it).

/** Milliseconds each part of a build took; null where the log lacked its lines. */
export interface BuildSplit {
  /** From the session's first log line to "Initializing session." (the graph and its data read). */
  loadMs: number | null;
  /** Every ConstantFolding pass, summed. */
  foldMs: number | null;
  /** Every other optimizer pass: the optimizer's whole time less folding. */
  otherPassesMs: number | null;
  /** "Saving initialized tensors." to "Done saving": initializers placed for the kernels. */
  initializersMs: number | null;
  /** "Done saving" to "Session successfully initialized.": kernels made, weights pre-packed. */
  prepackMs: number | null;
}

/** One log line's instant (seconds within the day) and its text; null for other lines. */
function stampOf(line: string): { atS: number; text: string } | null {
  const match = /^\d{4}-\d\d-\d\d (\d\d):(\d\d):(\d\d\.\d+) (.*)$/.exec(line);
  if (!match) return null;
  const [, h, m, s, text] = match;
  return { atS: Number(h) * 3600 + Number(m) * 60 + Number(s), text: text! };
}

/** The split of the build ORT logged verbosely in `log` (its stderr). */
export function buildSplitOf(log: string): BuildSplit {
  const lines = log.split('\n').flatMap((line) => stampOf(line) ?? []);
  const at = (needle: string) => lines.find((line) => line.text.includes(needle))?.atS ?? null;
  const span = (from: number | null, to: number | null) =>
    from === null || to === null ? null : Math.max(0, (to - from) * 1000);
  let foldMs: number | null = null;
  lines.forEach((line, i) => {
    if (!line.text.includes('Applying graph transformer ConstantFolding')) return;
    const end = lines.slice(i + 1).find((next) => next.text.includes('GraphTransformer ConstantFolding'));
    if (end) foldMs = (foldMs ?? 0) + (end.atS - line.atS) * 1000;
  });
  const initializing = at('Initializing session.');
  const saving = at('Saving initialized tensors.');
  const optimizeMs = span(initializing, saving);
  return {
    loadMs: span(lines[0]?.atS ?? null, initializing),
    foldMs,
    otherPassesMs: optimizeMs === null ? null : Math.max(0, optimizeMs - (foldMs ?? 0)),
    initializersMs: span(saving, at('Done saving initialized tensors')),
    prepackMs: span(at('Done saving initialized tensors'), at('Session successfully initialized.')),
  };
}

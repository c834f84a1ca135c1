import { matchAttention } from './attention';
import type { AttentionMatch } from './attention';
import { matchMlp } from './mlp';
import type { MlpMatch } from './mlp';
import { matchNorm } from './norm';
import type { NormMatch, StreamRef } from './norm';
import { expectFor, FusionRefused } from './refusal';
import { projectionAt, requireProjection } from './weights';
import type { Projection } from './weights';
import { describeProducer, LAYOUT_OPS } from './walker';
import type { Walker } from './walker';

/** One decoder layer as matched: its two norms, attention and MLP. */
export interface LayerMatch {
  inputNorm: NormMatch;
  attention: AttentionMatch;
  postNorm: NormMatch;
  mlp: MlpMatch;
}

/** The decoder from the logits back to the embedding. */
export interface DecoderMatch {
  head: Projection;
  finalNorm: NormMatch;
  layers: LayerMatch[];
  /** The value layer 0 reads: the embedding's output. */
  embedded: string;
}

/** The two values a stream sums, when it is a sum (an Add, or a SkipSimplifiedLayerNormalization's sum output). */
function partsOf(walker: Walker, stream: StreamRef): [string, string] | null {
  if ('parts' in stream) return stream.parts;
  const node = walker.producer(stream.value);
  if (node?.opType === 'Add' && node.inputs.length === 2) return [node.inputs[0]!, node.inputs[1]!];
  if (node?.opType === 'SkipSimplifiedLayerNormalization' && node.outputs[3] === walker.skip(stream.value))
    return [node.inputs[0]!, node.inputs[1]!];
  return null;
}

/** One name for a stream however it is reached: the sum's operands, or the value itself. */
function keyOf(walker: Walker, stream: StreamRef): string {
  const parts = partsOf(walker, stream);
  return parts
    ? parts
        .map((p) => walker.skip(p))
        .sort()
        .join(' + ')
    : walker.skip((stream as { value: string }).value);
}

/** Of a residual sum's two operands, the one a projection wrote (a sublayer's output) and the other. */
function splitResidual(walker: Walker, parts: [string, string], part: string): [string, string] {
  if (projectionAt(walker, parts[0], part)) return parts;
  if (projectionAt(walker, parts[1], part)) return [parts[1], parts[0]];
  throw new FusionRefused(
    part,
    `its residual adds ${describeProducer(walker, parts[0])} and ${describeProducer(walker, parts[1])}; expected a projection's output`,
  );
}

/** Checks a norm normalizes exactly the stream the residual carries. */
function expectSameStream(walker: Walker, norm: NormMatch, stream: StreamRef, part: string): void {
  expectFor(
    part,
    keyOf(walker, norm.stream) === keyOf(walker, stream),
    'it does not normalize the residual stream',
  );
}

/** Layer `index`, walked back from the stream after it; returns the layer and the stream before it. */
function walkLayer(
  walker: Walker,
  after: StreamRef,
  index: number,
  headDim: number,
): { layer: LayerMatch; before: StreamRef } | null {
  const parts = partsOf(walker, after);
  if (!parts) return null;
  const at = `layers.${index}`;
  const [mlpOut, middle] = splitResidual(walker, parts, at);
  const mlp = matchMlp(walker, mlpOut, `${at}.mlp`);
  const postNorm = matchNorm(walker, mlp.gate.input, `${at}.post_attention_layernorm`);
  expectSameStream(walker, postNorm, { value: middle }, `${at}.post_attention_layernorm`);
  const middleParts = partsOf(walker, postNorm.stream);
  expectFor(at, middleParts !== null, 'the attention output is not added to the residual stream');
  const [attentionOut, before] = splitResidual(walker, middleParts, at);
  const attention = matchAttention(walker, attentionOut, headDim, `${at}.self_attn`);
  const inputNorm = matchNorm(walker, attention.q.input, `${at}.input_layernorm`);
  expectSameStream(walker, inputNorm, { value: before }, `${at}.input_layernorm`);
  return { layer: { inputNorm, attention, postNorm, mlp }, before: inputNorm.stream };
}

/**
 * Walks the decoder back from `logits`: the LM head (through a logits-to-keep Slice and layout
 * ops), the final norm, then `numLayers` layers, each matched from the residual sum after it.
 */
export function walkDecoder(
  walker: Walker,
  logits: string,
  numLayers: number,
  headDim: number,
): DecoderMatch {
  const head = requireProjection(walker, walker.skip(logits, LAYOUT_OPS), 'lm_head');
  let normed = walker.skip(head.input, LAYOUT_OPS);
  const kept = walker.producerIs(normed, 'Slice');
  if (kept) normed = walker.skip(kept.inputs[0]!, LAYOUT_OPS);
  const finalNorm = matchNorm(walker, normed, 'model.norm');
  const layers: LayerMatch[] = [];
  let stream = finalNorm.stream;
  for (let index = numLayers - 1; index >= 0; index--) {
    const walked = walkLayer(walker, stream, index, headDim);
    expectFor(
      `layers.${index}`,
      walked !== null,
      `the graph has ${numLayers} layers of past but only ${layers.length} were found`,
    );
    expectFor(
      `layers.${index}`,
      walked.layer.attention.layer === index,
      `its attention reads layer ${walked.layer.attention.layer}'s past`,
    );
    layers.unshift(walked.layer);
    stream = walked.before;
  }
  expectFor(
    'embedding',
    !('parts' in stream) && partsOf(walker, stream) === null,
    `the graph has more layers than its ${numLayers} past inputs`,
  );
  return { head, finalNorm, layers, embedded: stream.value };
}

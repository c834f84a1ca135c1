import type { onnx as Onnx } from 'onnx-proto';
import { ropeInverseFrequencies } from '../../src-main/runtime/model/rope';

/**
 * Edits that turn tools/onnx-llama's naive graph into the other spellings exporters write for the
 * same math (Optimum / transformers.js, ONNX Runtime's optimizer), so the recognizer is tested on
 * each form without a Python exporter. Every edit keeps the logits the same.
 */

const int64s = (name: string, values: number[]): Onnx.ITensorProto => ({
  name,
  dataType: 7,
  dims: [values.length],
  rawData: new Uint8Array(BigInt64Array.from(values, BigInt).buffer),
});

/** `graph.node` with `node` replaced by `replacement` (in place, keeping the order). */
function replaceNode(graph: Onnx.GraphProto, node: Onnx.INodeProto, ...replacement: Onnx.INodeProto[]): void {
  graph.node.splice(graph.node.indexOf(node as Onnx.NodeProto), 1, ...(replacement as Onnx.NodeProto[]));
}

const producerOf = (graph: Onnx.GraphProto, name: string) => graph.node.find((n) => n.output?.includes(name));

/** RMSNorm as HF's `x * rsqrt(mean(x·x) + eps)`: the square by Mul, the division by Reciprocal and Mul. */
export function withReciprocalNorms(graph: Onnx.GraphProto): void {
  for (const node of [...graph.node]) {
    if (node.opType === 'Pow')
      Object.assign(node, { opType: 'Mul', input: [node.input![0]!, node.input![0]!] });
    const root = node.opType === 'Div' ? producerOf(graph, node.input![1]!) : undefined;
    if (root?.opType !== 'Sqrt') continue;
    const reciprocal = `${node.output![0]}/reciprocal`;
    replaceNode(
      graph,
      node,
      { opType: 'Reciprocal', input: [node.input![1]!], output: [reciprocal], name: reciprocal },
      { opType: 'Mul', input: [node.input![0]!, reciprocal], output: node.output, name: `${reciprocal}/mul` },
    );
  }
}

/**
 * Rotary as HF writes it: halves cut by Slice, `rotate_half(x) = concat(−x2, x1)` against a plain
 * `concat(sin, sin)` (the naive writer folds the sign into the sin instead).
 */
export function withNegatedRotateHalf(headDim: number) {
  return (graph: Onnx.GraphProto): void => {
    graph.initializer.push(
      int64s('rot.zero', [0]),
      int64s('rot.half', [headDim / 2]),
      int64s('rot.end', [2 ** 31 - 1]),
      int64s('rot.axis', [-1]),
    );
    for (const split of graph.node.filter((n) => n.opType === 'Split')) {
      const [first = '', second = ''] = split.output!;
      const x = split.input![0]!;
      replaceNode(
        graph,
        split,
        {
          opType: 'Slice',
          input: [x, 'rot.zero', 'rot.half', 'rot.axis'],
          output: [first],
          name: `${first}/slice`,
        },
        {
          opType: 'Slice',
          input: [x, 'rot.half', 'rot.end', 'rot.axis'],
          output: [second],
          name: `${second}/slice`,
        },
      );
      const swap = graph.node.find(
        (n) => n.opType === 'Concat' && n.input?.[0] === second && n.input[1] === first,
      )!;
      const negated = `${second}/neg`;
      graph.node.splice(graph.node.indexOf(swap), 0, {
        opType: 'Neg',
        input: [second],
        output: [negated],
        name: negated,
      });
      swap.input![0] = negated;
    }
    const signed = graph.node.find(
      (n) => n.opType === 'Concat' && producerOf(graph, n.input?.[0] ?? '')?.opType === 'Neg',
    )!;
    signed.input![0] = signed.input![1]!;
  };
}

/** cos/sin gathered by position from [positions, headDim / 2] tables, as older exports' caches do. */
export function withGatheredRopeTables(dims: { headDim: number; ropeTheta: number; numPositions: number }) {
  return (graph: Onnx.GraphProto): void => {
    const inverse = ropeInverseFrequencies(dims.headDim, dims.ropeTheta);
    const half = dims.headDim / 2;
    for (const opType of ['Cos', 'Sin'] as const) {
      const table = new Float32Array(dims.numPositions * half);
      for (let p = 0; p < dims.numPositions; p++)
        for (let i = 0; i < half; i++)
          table[p * half + i] = Math[opType === 'Cos' ? 'cos' : 'sin'](Math.fround(p * inverse[i]!));
      const name = `rope.${opType.toLowerCase()}_table`;
      graph.initializer.push({
        name,
        dataType: 1,
        dims: [dims.numPositions, half],
        rawData: new Uint8Array(table.buffer),
      });
      const node = graph.node.find((n) => n.opType === opType)!;
      Object.assign(node, {
        opType: 'Gather',
        input: [name, 'position_ids'],
        attribute: [{ name: 'axis', type: 2, i: 0 }],
      });
    }
  };
}

/**
 * Each residual Add feeding a SimplifiedLayerNormalization folded into one
 * SkipSimplifiedLayerNormalization whose fourth output is the sum (ONNX Runtime's transformer
 * optimizer writes this); for a graph ONNX Runtime already optimized to SimplifiedLayerNormalization.
 */
export function withSkipNorms(graph: Onnx.GraphProto): void {
  for (const norm of graph.node.filter((n) => n.opType === 'SimplifiedLayerNormalization')) {
    const add = producerOf(graph, norm.input![0]!);
    if (add?.opType !== 'Add') continue;
    const epsilon = norm.attribute!.find((a) => a.name === 'epsilon')!;
    replaceNode(graph, norm, {
      opType: 'SkipSimplifiedLayerNormalization',
      domain: 'com.microsoft',
      input: [add.input![1]!, add.input![0]!, norm.input![1]!],
      output: [norm.output![0]!, '', '', add.output![0]!],
      attribute: [epsilon],
      name: `${norm.output![0]}/skip`,
    });
    replaceNode(graph, add);
  }
}

// Rewrites a decoder graph for weight-only block quantization: every MatMul,
// Gemm (no bias) and axis-0 Gather whose weight is a 2-D float initializer
// (directly, or through one Cast as fp16-storage graphs have it) becomes
// com.microsoft MatMulNBits / GatherBlockQuantized. A tied embedding that both
// the Gather and the LM head read is quantized once and stored once.

import type { onnx as Onnx } from 'onnx-proto';
import { DATA_TYPE, rawTensor, tensorFloats } from '../onnx-file';
import { blockQuantize } from '../../../src-main/runtime/model/fused-graph/block-quantize';
import type {
  BlockQuantized,
  QuantBits,
  QuantScheme,
} from '../../../src-main/runtime/model/fused-graph/block-quantize';
import { bytesOf, intAttr, transposeFloats } from './proto-helpers';

/** How to quantize a graph. */
export interface QuantizeOptions {
  bits: QuantBits;
  blockSize: number;
  /** MatMulNBits accuracy_level: 0 unset, 1 fp32, 2 fp16, 3 bf16, 4 int8 activations. */
  accuracyLevel: number;
  scheme: QuantScheme;
  /** Also quantize Gather (embedding) weights. */
  isQuantizingEmbeddings: boolean;
}

/** What the rewrite did, for the command's report. */
export interface RewriteReport {
  numMatMuls: number;
  numGathers: number;
  /** Weights left in float, with the reason (e.g. "Gemm with bias"). */
  skipped: Array<{ node: string; reason: string }>;
}

const MS_DOMAIN = 'com.microsoft';

interface WeightSource {
  tensor: Onnx.ITensorProto;
  /** The Cast node between the initializer and its consumer, if any. */
  castName: string | null;
}

/** A quantized weight's initializer names, cached per (weight, orientation). */
interface QuantizedNames {
  data: string;
  scales: string;
  zeroPoints: string | null;
  numRows: number;
  numCols: number;
  quantized: BlockQuantized;
}

/** Quantizes the graph in place and returns what was done. */
export function quantizeGraph(model: Onnx.IModelProto, options: QuantizeOptions): RewriteReport {
  const graph = model.graph!;
  const rewriter = new Rewriter(graph, options);
  const report: RewriteReport = { numMatMuls: 0, numGathers: 0, skipped: [] };
  graph.node = (graph.node ?? []).flatMap((node) => rewriter.rewrite(node, report));
  rewriter.dropUnused();
  const imports = model.opsetImport ?? [];
  if (!imports.some((o) => o.domain === MS_DOMAIN)) imports.push({ domain: MS_DOMAIN, version: 1 });
  model.opsetImport = imports;
  return report;
}

class Rewriter {
  private readonly initializers = new Map<string, Onnx.ITensorProto>();
  private readonly casts = new Map<string, Onnx.INodeProto>();
  private readonly cache = new Map<string, QuantizedNames>();
  private readonly added: Onnx.ITensorProto[] = [];

  constructor(
    private readonly graph: Onnx.IGraphProto,
    private readonly options: QuantizeOptions,
  ) {
    for (const tensor of graph.initializer ?? []) this.initializers.set(tensor.name!, tensor);
    for (const node of graph.node ?? [])
      if (node.opType === 'Cast' && this.initializers.has(node.input![0]!))
        this.casts.set(node.output![0]!, node);
  }

  /** The node's replacement (itself when it is not a quantizable weight consumer). */
  rewrite(node: Onnx.INodeProto, report: RewriteReport): Onnx.INodeProto[] {
    const domain = node.domain ?? '';
    if (domain !== '' && domain !== 'ai.onnx') return [node];
    if (node.opType === 'MatMul') return this.matMul(node, node.input![1]!, 'transposed', report);
    if (node.opType === 'Gemm') return this.gemm(node, report);
    if (node.opType === 'Gather' && this.options.isQuantizingEmbeddings) return this.gather(node, report);
    return [node];
  }

  private gemm(node: Onnx.INodeProto, report: RewriteReport): Onnx.INodeProto[] {
    const attr = (name: string, fallback: number) =>
      Number(
        node.attribute?.find((a) => a.name === name)?.[name.startsWith('trans') ? 'i' : 'f'] ?? fallback,
      );
    if (!this.sourceOf(node.input![1]!)) return [node];
    const reason =
      (node.input!.length > 2 && node.input![2] ? 'Gemm with bias' : null) ??
      (attr('transA', 0) !== 0 ? 'Gemm with transA' : null) ??
      (attr('alpha', 1) !== 1 ? 'Gemm with alpha ≠ 1' : null);
    if (reason) {
      report.skipped.push({ node: node.name ?? node.output![0]!, reason });
      return [node];
    }
    return this.matMul(node, node.input![1]!, attr('transB', 0) ? 'rows' : 'transposed', report);
  }

  private matMul(
    node: Onnx.INodeProto,
    weight: string,
    orientation: 'rows' | 'transposed',
    report: RewriteReport,
  ): Onnx.INodeProto[] {
    const names = this.quantized(weight, orientation, report, node);
    if (!names) return [node];
    report.numMatMuls += 1;
    const inputs = [node.input![0]!, names.data, names.scales];
    if (names.zeroPoints) inputs.push(names.zeroPoints);
    return [
      {
        opType: 'MatMulNBits',
        domain: MS_DOMAIN,
        name: `${node.name ?? node.output![0]}_q${this.options.bits}`,
        input: inputs,
        output: node.output,
        attribute: [
          intAttr('K', names.numCols),
          intAttr('N', names.numRows),
          intAttr('bits', this.options.bits),
          intAttr('block_size', this.options.blockSize),
          intAttr('accuracy_level', this.options.accuracyLevel),
        ],
      },
    ];
  }

  /**
   * Gather(axis 0) on a [V, H] weight: GatherBlockQuantized reads the same [V, blocks, blob]
   * bytes as the LM head's MatMulNBits, with its scales as [V, blocks, 1], and its output
   * [..., blocks, block] is reshaped back to [..., H].
   */
  private gather(node: Onnx.INodeProto, report: RewriteReport): Onnx.INodeProto[] {
    const axis = Number(node.attribute?.find((a) => a.name === 'axis')?.i ?? 0);
    const source = this.sourceOf(node.input![0]!);
    if (!source || axis !== 0) return [node];
    const numCols = Number(source.tensor.dims![1]);
    if (numCols % this.options.blockSize !== 0) {
      report.skipped.push({
        node: node.name ?? '',
        reason: `embedding width ${numCols} is not a multiple of the block size`,
      });
      return [node];
    }
    if (this.options.scheme === 'asymmetric') {
      report.skipped.push({ node: node.name ?? '', reason: 'asymmetric embeddings are not written' });
      return [node];
    }
    const names = this.quantized(node.input![0]!, 'rows', report, node);
    if (!names) return [node];
    report.numGathers += 1;
    const { numBlocks, blobBytes } = names.quantized;
    const out = node.output![0]!;
    const blocksOut = `${out}/blocks`;
    const gatherScales = this.addTensor(
      rawTensor(
        `${names.scales}/gather`,
        DATA_TYPE.float32,
        [names.numRows, numBlocks, 1],
        bytesOf(names.quantized.scales),
      ),
    );
    const inputs = [names.data, node.input![1]!, gatherScales];
    const widthName = this.addTensor(
      rawTensor(`${out}/width`, DATA_TYPE.int64, [1], bytesOf(BigInt64Array.of(BigInt(numCols)))),
    );
    return [
      {
        opType: 'GatherBlockQuantized',
        domain: MS_DOMAIN,
        name: `${node.name ?? out}_q${this.options.bits}`,
        input: inputs,
        output: [blocksOut],
        attribute: [
          intAttr('gather_axis', 0),
          intAttr('quantize_axis', 2),
          intAttr('block_size', (blobBytes * 8) / this.options.bits),
          intAttr('bits', this.options.bits),
        ],
      },
      { opType: 'Shape', name: `${out}/shape_node`, input: [node.input![1]!], output: [`${out}/ids_shape`] },
      {
        opType: 'Concat',
        name: `${out}/concat_node`,
        input: [`${out}/ids_shape`, widthName],
        output: [`${out}/shape`],
        attribute: [intAttr('axis', 0)],
      },
      { opType: 'Reshape', name: `${out}/reshape_node`, input: [blocksOut, `${out}/shape`], output: [out] },
    ];
  }

  /** The 2-D float initializer behind a value (directly or through one Cast), or null. */
  private sourceOf(value: string): WeightSource | null {
    const cast = this.casts.get(value);
    const tensor = this.initializers.get(cast ? cast.input![0]! : value);
    if (!tensor || (tensor.dims ?? []).length !== 2) return null;
    const dataType = tensor.dataType;
    if (dataType !== DATA_TYPE.float32 && dataType !== DATA_TYPE.float16 && dataType !== DATA_TYPE.bfloat16)
      return null;
    return { tensor, castName: cast ? value : null };
  }

  private quantized(
    value: string,
    orientation: 'rows' | 'transposed',
    report: RewriteReport,
    node: Onnx.INodeProto,
  ): QuantizedNames | null {
    const source = this.sourceOf(value);
    if (!source) return null;
    if (!source.castName && source.tensor.dataType !== DATA_TYPE.float32) {
      // A 16-bit weight fed straight in means 16-bit activations: MatMulNBits would need fp16 scales.
      report.skipped.push({
        node: node.name ?? '',
        reason: 'fp16 activations (write a q4f16 variant instead)',
      });
      return null;
    }
    const key = `${source.tensor.name}|${orientation}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const [d0, d1] = source.tensor.dims!.map(Number) as [number, number];
    const floats = tensorFloats(source.tensor);
    const rows = orientation === 'rows' ? floats : transposeFloats(floats, d0, d1);
    const [numRows, numCols] = orientation === 'rows' ? [d0, d1] : [d1, d0];
    const { bits, blockSize, scheme } = this.options;
    const quantized = blockQuantize({ rows, numRows, numCols, bits, blockSize, scheme });
    const base = `${source.tensor.name}${orientation === 'transposed' ? '.T' : ''}.q${bits}`;
    const names: QuantizedNames = {
      data: this.addTensor(
        rawTensor(base, DATA_TYPE.uint8, [numRows, quantized.numBlocks, quantized.blobBytes], quantized.data),
      ),
      scales: this.addTensor(
        rawTensor(
          `${base}.scales`,
          DATA_TYPE.float32,
          [numRows, quantized.numBlocks],
          bytesOf(quantized.scales),
        ),
      ),
      zeroPoints: quantized.zeroPoints
        ? this.addTensor(
            rawTensor(
              `${base}.zero_points`,
              DATA_TYPE.uint8,
              [quantized.zeroPoints.length],
              quantized.zeroPoints,
            ),
          )
        : null,
      numRows,
      numCols,
      quantized,
    };
    this.cache.set(key, names);
    return names;
  }

  private addTensor(tensor: Onnx.ITensorProto): string {
    this.added.push(tensor);
    return tensor.name!;
  }

  /** Removes Casts and initializers nothing reads any more; appends the new initializers. */
  dropUnused(): void {
    const graph = this.graph;
    const read = (): Set<string> => {
      const names = new Set<string>((graph.output ?? []).map((o) => o.name!));
      for (const node of graph.node ?? []) for (const input of node.input ?? []) names.add(input);
      return names;
    };
    let used = read();
    graph.node = (graph.node ?? []).filter(
      (n) => n.opType !== 'Cast' || !this.casts.has(n.output![0]!) || used.has(n.output![0]!),
    );
    used = read();
    graph.initializer = [...(graph.initializer ?? []).filter((t) => used.has(t.name!)), ...this.added];
  }
}

import { floatAttribute } from '../onnx-graph/graph-view';
import { expectFor, FusionRefused } from './refusal';
import { projectionAt, requireProjection } from './weights';
import type { Projection } from './weights';
import { describeProducer, normalDomain } from './walker';
import type { Walker } from './walker';

/** One layer's MLP: gate, up and down projections. */
export interface MlpMatch {
  gate: Projection;
  up: Projection;
  down: Projection;
}

/** Activations that are not SiLU, by the op exporters write them as. */
const OTHER_ACTIVATIONS: Record<string, string> = {
  Gelu: 'GELU',
  FastGelu: 'GELU (tanh)',
  BiasGelu: 'GELU',
  Erf: 'GELU (erf)',
  Tanh: 'tanh',
  Relu: 'ReLU',
  Softplus: 'softplus',
};

/** The gate projection under SiLU: `g · sigmoid(g)` or QuickGelu(alpha 1); null when `name` is not one. */
function siluOf(walker: Walker, name: string, part: string): Projection | null {
  const node = walker.producer(name);
  if (!node) return null;
  if (node.opType === 'QuickGelu' && normalDomain(node.domain) === 'com.microsoft') {
    const alpha = floatAttribute(node, 'alpha', 1.702);
    expectFor(part, alpha === 1, `its activation is QuickGelu with alpha ${alpha}, not SiLU`);
    return requireProjection(walker, node.inputs[0]!, `${part}.gate_proj`);
  }
  if (node.opType !== 'Mul') return null;
  for (const [gate, other] of [node.inputs, [...node.inputs].reverse()] as Array<[string, string]>) {
    const sigmoid = walker.producerIs(other, 'Sigmoid');
    if (sigmoid && walker.same(sigmoid.inputs[0]!, gate))
      return requireProjection(walker, gate, `${part}.gate_proj`);
  }
  return null;
}

/** Refuses with the activation's name when one of the few ops before `name` is an activation other than SiLU. */
function refuseOtherActivation(walker: Walker, name: string, part: string): void {
  let frontier = [name];
  for (let depth = 0; depth < 3 && frontier.length > 0; depth++) {
    const nodes = frontier.map((value) => walker.producer(value)).filter((node) => node !== null);
    const activation = nodes.map((node) => OTHER_ACTIVATIONS[node.opType]).find(Boolean);
    if (activation) throw new FusionRefused(part, `its activation is ${activation}, not SiLU`);
    frontier = nodes.flatMap((node) => node.inputs.filter((input) => input && !walker.constant(input)));
  }
}

/**
 * The SwiGLU MLP writing `output`: down(silu(gate(h)) · up(h)), SiLU as `g · sigmoid(g)` or
 * QuickGelu(alpha 1). Refuses another activation (GELU, ReLU, …) or a plain two-layer MLP.
 */
export function matchMlp(walker: Walker, output: string, part: string): MlpMatch {
  const down = requireProjection(walker, output, `${part}.down_proj`);
  const product = walker.producer(down.input);
  expectFor(
    part,
    product !== null,
    `expected silu(gate) · up, found ${describeProducer(walker, down.input)}`,
  );
  if (product.opType === 'Mul')
    for (const [activated, upName] of [product.inputs, [...product.inputs].reverse()] as Array<
      [string, string]
    >) {
      const gate = siluOf(walker, activated, part);
      const up = gate ? projectionAt(walker, upName, `${part}.up_proj`) : null;
      if (!gate || !up) continue;
      expectFor(part, walker.same(gate.input, up.input), 'its gate and up projections read different inputs');
      return { gate, up, down };
    }
  refuseOtherActivation(walker, down.input, part);
  throw new FusionRefused(
    part,
    `expected silu(gate) · up before the down projection, found ${product.opType}`,
  );
}

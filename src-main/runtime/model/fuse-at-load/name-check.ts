import type { DecoderMatch } from './decoder-walk';
import { FusionRefused } from './refusal';

/** Hugging Face's projection names, by the role the dataflow gave a weight. */
const ROLES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
const LAYER_NUMBER = /layers?[._/](\d+)[._/]/;

/**
 * Names cross-check the dataflow where an exporter kept them: a weight whose initializer names
 * another projection role or another layer than the one its place in the graph gives it means
 * the match is wrong, so the graph is refused rather than fused with weights swapped.
 */
export function crossCheckNames(match: DecoderMatch): void {
  match.layers.forEach(({ attention, mlp }, layer) => {
    const found = {
      q_proj: attention.q,
      k_proj: attention.k,
      v_proj: attention.v,
      o_proj: attention.o,
      gate_proj: mlp.gate,
      up_proj: mlp.up,
      down_proj: mlp.down,
    };
    for (const role of ROLES) {
      const name = found[role].source;
      const named = ROLES.find((other) => name.includes(other));
      const part = `layers.${layer}.${role}`;
      if (named && named !== role)
        throw new FusionRefused(
          part,
          `its place in the graph makes it ${role} but its weight is named ${name}`,
        );
      const number = LAYER_NUMBER.exec(name)?.[1];
      if (number !== undefined && Number(number) !== layer)
        throw new FusionRefused(
          part,
          `its place in the graph makes it layer ${layer} but its weight is named ${name}`,
        );
    }
  });
}

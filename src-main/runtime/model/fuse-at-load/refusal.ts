/**
 * Why a loaded graph was not fused: the part of the model that did not match (`layers.3.mlp`,
 * `rotary`, `lm head`) and what was found there instead. Thrown inside the recognizer and turned
 * into its outcome at the top, so every refusal names a part and a reason.
 */
export class FusionRefused extends Error {
  constructor(
    readonly part: string,
    readonly why: string,
  ) {
    super(`${part} did not fuse: ${why}`);
    this.name = 'FusionRefused';
  }
}

/** Throws FusionRefused for `part` unless `condition` holds. */
export function expectFor(part: string, condition: boolean, why: string | (() => string)): asserts condition {
  if (!condition) throw new FusionRefused(part, typeof why === 'string' ? why : why());
}

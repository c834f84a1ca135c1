import type { GraphBuilder } from './graph-builder';
import { bytesOfBits, floatValues } from './float-matrix';
import type { FloatWeight } from './weight-set';

/** A norm weight as a float32 initializer (every source dtype widens exactly). */
export function addFloatVector(builder: GraphBuilder, name: string, weight: FloatWeight): string {
  const values = floatValues(weight);
  return builder.addInitializer(name, 'float32', [values.length], bytesOfBits(values));
}

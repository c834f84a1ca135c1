import { kvGeometryOf } from '../model/kv-geometry';
import type { KvGeometry } from '../model/kv-geometry';
import type { Slot } from './slot';

/**
 * The K/V geometry of the graph a slot runs: its last load's graph (a graph fused at load keeps
 * float32 K/V in start-aligned rows, whatever the exported graph kept), else the variant's as
 * listed. What its pages and its share of the K/V budget are sized by.
 */
export function slotGeometryOf(slot: Pick<Slot, 'model' | 'graphIo'>): KvGeometry {
  const geometry = kvGeometryOf(slot.model);
  if (!slot.graphIo) return geometry;
  return { ...geometry, kvDtype: slot.graphIo.kvDtype, rows: slot.graphIo.kvRows };
}

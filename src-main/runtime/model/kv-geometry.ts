import type { CatalogueModel } from './catalogue';
import type { FloatType, KvRowAlignment } from './decoder-io';
import { ELEMENT_BYTES } from './onnx-graph/element-types';

/**
 * The shape of a model variant's K/V: what sizes context pages and the K/V budget, and how a
 * worker lays out a batch. Device-free, so the scheduler can size pages without a runner.
 */
export interface KvGeometry {
  numLayers: number;
  numKvHeads: number;
  headDim: number;
  /** The graph's past/present element type. */
  kvDtype: FloatType;
  /** Where a batch row's tokens sit in its columns (pages hold one sequence: the same either way). */
  rows: KvRowAlignment;
}

/** The K/V geometry of a model variant: the config's shape in the graph's K/V dtype. */
export function kvGeometryOf(model: Pick<CatalogueModel, 'folder' | 'graph'>): KvGeometry {
  const { numLayers, numKvHeads, headDim } = model.folder.shape;
  return { numLayers, numKvHeads, headDim, kvDtype: model.graph.io.kvDtype, rows: model.graph.io.kvRows };
}

/** Bytes in one context page: `pageElements` in the geometry's dtype (the unit of every K/V budget). */
export function pageBytes(geometry: KvGeometry, pageSize: number): number {
  return pageElements(geometry, pageSize) * ELEMENT_BYTES[geometry.kvDtype];
}

/** Elements in one context page: every layer's key and value for `pageSize` tokens. */
export function pageElements(geometry: KvGeometry, pageSize: number): number {
  return geometry.numLayers * 2 * geometry.numKvHeads * pageSize * geometry.headDim;
}

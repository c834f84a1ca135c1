export { BAR_PHASES, PHASES, PART_COLORS, PART_EXPLANATIONS, PART_LABELS } from './part-colors';
export type { BarPhase, TtftPhase } from './part-colors';
export { barPhasesOf, phasesOf, slicesOf } from './phase-values';
export type { PhaseSlice } from './phase-values';
export { SIMPLE_GROUPS, groupSlicesOf } from './simple-groups';
export type { GroupSlice, SimpleGroup } from './simple-groups';
export { PART_LAYERS, layerMs } from './bar-layers';
export type { BarLayer } from './bar-layers';

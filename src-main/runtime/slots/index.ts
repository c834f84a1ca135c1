export { SlotRegistry } from './slot-registry';
export type { SlotRegistryOptions } from './slot-registry-options';
export { footprintOf, loadMsOf, mb } from './slot';
export { slotGeometryOf } from './slot-geometry';
export type { Slot, SlotConversion, SlotRunner } from './slot';
export { canTransition, DEFAULT_KEEP_ALIVE, SLOT_TRANSITIONS } from './slot-types';
export type { KeepAlive, SlotCause, SlotEvent, SlotStatus } from './slot-types';

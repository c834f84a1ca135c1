export { PageStore } from './page-store';
export type { PageData } from './page-data';
export type { CachedPage, PageCounters } from './page-store';
export { chainHash, pageKey, identityKey, CHAIN_ROOT } from './page-key';
export type { PageIdentity } from './page-key';
export { DiskPages, autoBudgetBytes } from './disk-pages';
export type { DiskRead, DiskTierState, DiskPagesOptions } from './disk-pages';
export type { DiskPageRow, DiskPageRows } from './disk-page-rows';

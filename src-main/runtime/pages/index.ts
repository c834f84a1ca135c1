export { PageStore } from './page-store';
export type { PageData } from './page-data';
export type { CachedPage, PageCounters } from './page-store';
export { chainHash, pageKey, identityKey, CHAIN_ROOT } from './page-key';
export type { PageIdentity } from './page-key';

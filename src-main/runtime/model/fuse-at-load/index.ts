export { recognizeDecoder } from './recognize';
export type { Recognition, RecognizeHints } from './recognize';
export { fuseDecoder } from './fuse';
export { FUSE_AT_LOAD_FORM } from './form';
export type { FusedDecoder } from './fuse';
export {
  asExported,
  describeFusion,
  detailFusion,
  FUSION_CHECK_LIMITS,
  FusionAgreementSchema,
  FusionOutcomeSchema,
  FusionStepNodesSchema,
} from './outcome';
export type { FusionAgreement, FusionOutcome } from './outcome';

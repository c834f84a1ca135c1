export { discoverModels, placesWhenOff } from './discover';
export type { PlaceState } from './discover';
export type { FoundModel, SourceFacts } from './found-model';
export { folderFound, ggufFound, isGgufModelFile } from './lm-studio-models';
export { defaultDiscoveryEnvironment, usualPlaces } from './places';
export type { DiscoveryEnvironment, DiscoveryPlace } from './places';

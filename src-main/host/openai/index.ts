export { handleOpenAi, openAiRoutes, isOpenAiPath } from './handle-openai';
export type { OpenAiHttpContext } from './handle-openai';
export { startOpenAiServer } from './standalone-server';
export type { OpenAiServer } from './standalone-server';
export { isAuthorized } from '../http';

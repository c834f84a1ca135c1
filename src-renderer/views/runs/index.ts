export { RunsView } from './RunsView';

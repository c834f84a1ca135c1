export { TracesView } from './TracesView';

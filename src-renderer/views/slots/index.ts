export { SlotsView } from './SlotsView';

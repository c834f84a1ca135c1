export { BenchView } from './BenchView';

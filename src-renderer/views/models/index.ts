export { AddModelPanel } from './AddModelPanel';
export { FirstRunCard } from './FirstRunCard';

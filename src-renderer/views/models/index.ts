export { AddModelPanel, ModelsFolderLine } from './AddModelPanel';
export { FirstRunCard } from './FirstRunCard';

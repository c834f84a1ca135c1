export { AddModelPanel, ModelsFolderLine } from './AddModelPanel';
export { FirstRunCard } from './FirstRunCard';
export { DeleteModelAction } from './DeleteModelAction';

import type { KeyboardEvent } from 'react';

/**
 * A keydown handler for a confirmation or small panel: Escape cancels it and goes no further, so
 * the window's own Escape (close "Add a model", stop the answer) does not also fire.
 */
export function cancelOnEscape(onCancel: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onCancel();
  };
}

import { useState } from 'react';
import { copyText } from './copy-text';

/** A button that copies `text()` and says "Copied" (or why not) for a moment. */
export function CopyButton(props: { text: () => string; testId?: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    setState((await copyText(props.text())) ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 1_500);
  };
  const label = props.label ?? 'Copy';
  return (
    <button
      type="button"
      className="quiet small"
      data-testid={props.testId}
      data-state={state}
      aria-label={label}
      onClick={() => void copy()}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}

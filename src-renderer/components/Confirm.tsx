import type { ReactNode } from 'react';
import { cancelOnEscape } from './cancel-on-escape';

/**
 * Where a confirmation sits: `inline` in a table cell or a line of text (the question runs on
 * into the buttons), or `row` as a panel across the row it asks about (the question in red).
 */
export type ConfirmPlacement = 'inline' | 'row';

/** One confirmation's question, its action and what it reports to its owner. */
export interface ConfirmProps {
  placement: ConfirmPlacement;
  /** The dialog's accessible name ("Confirm delete"). */
  label: string;
  testId: string;
  /** The question, naming what the action removes. */
  children: ReactNode;
  /** The action's button text ("Delete", "Forget"). */
  action: string;
  actionTestId: string;
  /** A tooltip on the action (the full paths it removes), if any. */
  actionTitle?: string;
  onConfirm(): void;
  /** Keep (or Escape): nothing is done. */
  onCancel(): void;
  /** Shown after the buttons, inside the dialog (an inline action's error). */
  after?: ReactNode;
}

/**
 * A confirmation before something is removed: the question, the action, and Keep, which takes
 * the focus so that Enter keeps; Escape keeps too and goes no further.
 */
export function Confirm(props: ConfirmProps) {
  const isInline = props.placement === 'inline';
  const keyed = {
    role: 'alertdialog',
    'aria-label': props.label,
    'data-testid': props.testId,
    onKeyDown: cancelOnEscape(props.onCancel),
  } as const;
  const action = (
    <button
      type="button"
      className={isInline ? 'danger small' : 'stop small'}
      data-testid={props.actionTestId}
      title={props.actionTitle}
      onClick={props.onConfirm}
    >
      {props.action}
    </button>
  );
  const keep = (
    <button type="button" className={isInline ? 'quiet small' : 'small'} onClick={props.onCancel} autoFocus>
      Keep
    </button>
  );
  if (!isInline)
    return (
      <div className="row-panel danger" {...keyed}>
        <span>{props.children}</span>
        {action}
        {keep}
        {props.after}
      </div>
    );
  return (
    <span className="confirm" {...keyed}>
      {props.children} {action} {keep}
      {props.after}
    </span>
  );
}

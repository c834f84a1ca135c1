import type { ReactNode } from 'react';

/** A titled card: the unit every view is laid out in. */
export function Panel(props: {
  title: string;
  children: ReactNode;
  className?: string;
  testId?: string;
  actions?: ReactNode;
  /** The technical name behind a plain title (a formula, a seed's name), shown on hover. */
  hint?: string;
}) {
  return (
    <section className={`panel ${props.className ?? ''}`} data-testid={props.testId}>
      <header className="panel-head">
        <h2>
          {props.hint ? (
            <span className="hinted" title={props.hint}>
              {props.title}
            </span>
          ) : (
            props.title
          )}
        </h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

/** A message shown where data is missing or an action failed. */
export function Notice(props: { children: ReactNode; tone?: 'info' | 'error' }) {
  return <p className={`notice ${props.tone ?? 'info'}`}>{props.children}</p>;
}

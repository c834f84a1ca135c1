import type { ReactNode } from 'react';

/** One labelled figure; `testId` and `value` attributes let tests read it without parsing text. */
export interface Figure {
  label: string;
  value: ReactNode;
  testId?: string;
  dataValue?: string | number;
  title?: string;
  /** What the label means, shown on hover over it (terms of art: goodput, SLO…). */
  labelTitle?: string;
}

/** A two-column list of labelled figures (slot cards, goodput, page totals). */
export function Figures(props: { figures: readonly Figure[] }) {
  return (
    <dl className="figures">
      {props.figures.map((f) => (
        <div key={f.label} className="figure">
          <dt title={f.labelTitle} className={f.labelTitle ? 'term' : undefined}>
            {f.label}
          </dt>
          <dd data-testid={f.testId} data-value={f.dataValue} title={f.title}>
            {f.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

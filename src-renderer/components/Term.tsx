import type { ReactNode } from 'react';

/** The latency terms the app prints, each with the short explanation shown on hover. */
export const TERMS = {
  TTFT: 'Time to first token: from the request reaching First Frame to its first words being sent back.',
  ITL: 'Inter-token latency: the gap between two consecutive tokens of one answer.',
  E2E: 'End to end: from the request arriving to its last token.',
  SLO: 'Service level objective: the TTFT and inter-token limits you set; a request within both meets it.',
  goodput: 'Requests per second that met the SLO (throughput that counts).',
  p50: 'Median: half the requests were faster.',
  p95: '95th percentile: 95 in 100 requests were at least this fast.',
  p99: '99th percentile: 99 in 100 requests were at least this fast.',
  transport: 'Client minus server TTFT: time in the IPC/HTTP transport and the page.',
  'tok/s': 'Tokens per second while writing, after the first token.',
} as const;

/** A term of art. */
export type TermName = keyof typeof TERMS;

/** A term with its explanation on hover (and for screen readers). */
export function Term(props: { name: TermName; children?: ReactNode }) {
  return (
    <abbr className="term" title={TERMS[props.name]} data-term={props.name}>
      {props.children ?? props.name}
    </abbr>
  );
}

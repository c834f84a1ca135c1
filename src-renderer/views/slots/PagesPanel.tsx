import type { PageStats } from '../../../src-main/service/contract/schemas';
import { useSlice } from '../../store/react';
import { Figures } from '../../components/Figures';
import { formatBytes, formatCount, formatShare } from '../../components/format';
import type { Figure } from '../../components/Figures';

/**
 * Remembered context (the word Settings uses for context pages): totals, how much of the prompts
 * looked up was found remembered, and how much of each conversation's prompt the pages cover.
 */
export function PagesPanel() {
  const pages = useSlice('slots', (s) => s.pages);
  if (!pages) return <p className="empty-chart">Loading page stats…</p>;
  return (
    <div className="pages" data-testid="pages-panel">
      <Figures figures={pageFigures(pages)} />
      <CoverageTable conversations={pages.conversations} />
    </div>
  );
}

function pageFigures(pages: PageStats): Figure[] {
  return [
    {
      label: 'pages in memory',
      value: `${formatCount(pages.numPages)} (${formatCount(pages.numHeldPages)} in use) × ${pages.pageSize} tokens`,
      testId: 'pages-count',
      dataValue: pages.numPages,
    },
    { label: 'size', value: `${formatBytes(pages.bytes)} of ${formatBytes(pages.budgetBytes)} allowed` },
    {
      label: 'found remembered',
      value: `${formatShare(pages.hitRate)} of prompt tokens looked up (${formatCount(pages.numHitTokens)} of ${formatCount(pages.numLookupTokens)}, ${formatCount(pages.numLookups)} lookups)`,
      testId: 'pages-hit-rate',
    },
    { label: 'dropped for room', value: formatCount(pages.numEvicted) },
    {
      label: 'on disk',
      value:
        pages.disk.state === 'none'
          ? 'none (history is off)'
          : `${formatCount(pages.disk.numPages)} pages, ${formatBytes(pages.disk.bytes)} of ${formatBytes(pages.disk.budgetBytes)} allowed` +
            `${pages.disk.state === 'full' ? ' — disk full, no longer written' : pages.disk.state === 'off' ? ' — off' : ''}` +
            ` (${formatCount(pages.disk.numRead)} read back, ${formatCount(pages.disk.numRefused)} refused)`,
      testId: 'pages-disk',
      dataValue: pages.disk.numPages,
    },
  ];
}

function CoverageTable(props: { conversations: PageStats['conversations'] }) {
  const titles = useSlice('chat', (s) => s.conversations);
  const titleOf = (id: string) => titles.find((c) => c.conversationId === id)?.title ?? id;
  return (
    <table className="data-table compact">
      <thead>
        <tr>
          <th scope="col">conversation</th>
          <th scope="col">prompt tokens covered by pages</th>
        </tr>
      </thead>
      <tbody>
        {props.conversations.map((c) => (
          <tr key={c.conversationId}>
            <th scope="row">{titleOf(c.conversationId)}</th>
            <td>
              <div
                className="meter"
                title={`${c.numCachedTokens} of ${c.numPromptTokens} prompt tokens cached`}
              >
                <div
                  className="meter-fill"
                  style={{
                    width: `${c.numPromptTokens === 0 ? 0 : (c.numCachedTokens / c.numPromptTokens) * 100}%`,
                  }}
                />
              </div>
              {c.numCachedTokens} / {c.numPromptTokens}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

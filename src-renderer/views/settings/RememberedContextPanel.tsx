import { useEffect, useState } from 'react';
import type { PageStats } from '../../../src-main/service/contract/schemas';
import { useSlice, useStores } from '../../store/react';
import { Confirm } from '../../components/Confirm';
import { formatBytes, formatCount } from '../../components/format';
import { Notice } from '../../components/Panel';

/** The disk tier's state in words. */
const STATE_WORDS: Record<PageStats['disk']['state'], string> = {
  on: 'kept on disk',
  off: 'not kept on disk (its space is set to 0)',
  full: 'no longer written: the disk is full',
  none: 'not kept on disk (history is off)',
};

/**
 * Remembered context on disk: what is kept (conversation content, in the data folder's
 * `context-pages`, readable by this user only) and "Forget remembered context" for one model
 * or all, which removes the files and their index rows after a confirmation (Escape keeps them).
 */
export function RememberedContextPanel() {
  const { slots } = useStores();
  const disk = useSlice('slots', (s) => s.pages?.disk ?? null);
  const models = useSlice('slots', (s) => s.models);
  const [modelId, setModelId] = useState('');
  const [note, setNote] = useState<{ tone: 'info' | 'error'; text: string } | null>(null);
  // The model whose pages a confirmation is asking about ('' for every model), or none asked.
  const [asking, setAsking] = useState<string | null>(null);
  useEffect(() => {
    void Promise.all([slots.getState().refreshPageStats(), slots.getState().refresh()]);
  }, [slots]);
  const forget = async (which: string | null) => {
    setAsking(null);
    const result = await slots.getState().forgetPages(which);
    setNote(
      typeof result === 'number'
        ? { tone: 'info', text: `Forgot ${formatCount(result)} remembered piece(s) of context.` }
        : { tone: 'error', text: result },
    );
  };
  if (!disk) return <p className="muted">Loading remembered context…</p>;
  return (
    <div data-testid="remembered-context" data-state={disk.state}>
      <p className="setting-help">
        The context of recent conversations is {STATE_WORDS[disk.state]}, so a long conversation answers fast
        again after a restart: {formatCount(disk.numPages)} piece(s), {formatBytes(disk.bytes)} of{' '}
        {formatBytes(disk.budgetBytes)}. They hold conversation content, readable by your account only.
      </p>
      <p className="actions">
        <select value={modelId} onChange={(e) => setModelId(e.target.value)} aria-label="Model to forget">
          <option value="">choose a model…</option>
          {models.map((m) => (
            <option key={m.modelId} value={m.modelId}>
              {m.displayName}
            </option>
          ))}
        </select>
        <button type="button" disabled={modelId === ''} onClick={() => setAsking(modelId)}>
          Forget for this model…
        </button>
        <button type="button" data-testid="forget-all-context" onClick={() => setAsking('')}>
          Forget for every model…
        </button>
      </p>
      {asking !== null && (
        <Confirm
          placement="row"
          label="Forget remembered context"
          testId="forget-confirm"
          action="Forget"
          actionTestId="forget-confirm-yes"
          onConfirm={() => void forget(asking === '' ? null : asking)}
          onCancel={() => setAsking(null)}
        >
          Forget the remembered context of{' '}
          {asking === '' ? 'every model' : (models.find((m) => m.modelId === asking)?.displayName ?? asking)}?
          A long conversation then reads its whole prompt again on its first answer after a restart.
        </Confirm>
      )}
      {note && <Notice tone={note.tone}>{note.text}</Notice>}
    </div>
  );
}

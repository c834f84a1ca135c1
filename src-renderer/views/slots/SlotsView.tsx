import { useCallback } from 'react';
import { whyUnusable } from '../../../src-main/runtime/model/listing-status';
import { useSlice, useStores } from '../../store/react';
import { ConversionCachePanel } from './ConversionCachePanel';
import { EndpointsPanel } from './EndpointsPanel';
import { AddModelPanel } from '../models/AddModelPanel';
import { DeleteModelAction } from '../models/DeleteModelAction';
import { PagesPanel } from './PagesPanel';
import { ProblemsPanel } from './ProblemsPanel';
import { ResidencyTimeline } from './ResidencyTimeline';
import { SlotCard } from './SlotCard';
import { ACTION_WORDS, statusWords } from './slot-words';
import { formatBytes } from '../../components/format';
import { Notice, Panel } from '../../components/Panel';
import { usePolling } from '../../components/use-ticker';

/** Slots: a card per slot, models not yet loaded, the residency timeline, context pages and problems. */
export function SlotsView() {
  const { slots: store } = useStores();
  const slots = useSlice('slots', (s) => s.slots);
  const models = useSlice('slots', (s) => s.models);
  const error = useSlice('slots', (s) => s.error);
  const prefetch = useSlice('slots', (s) => s.prefetch);
  const poll = useCallback(() => {
    void store.getState().refresh();
    void store.getState().refreshPages();
  }, [store]);
  usePolling(poll, 2000);
  const unloaded = models.filter((m) => !slots.some((s) => s.modelId === m.modelId));
  return (
    <div className="slots-view">
      {error && <Notice tone="error">{error}</Notice>}
      <Panel title="Model slots" className="wide">
        <div className="slot-grid">
          {slots.map((slot) => (
            <SlotCard key={slot.slotId} slot={slot} />
          ))}
          {unloaded.map((m) => (
            <article
              key={m.modelId}
              className="slot-card unloaded"
              data-testid="model-card"
              data-model-id={m.modelId}
            >
              <header>
                <span className="status-badge status-empty">{statusWords(null)}</span>
                <b>{m.displayName}</b>
                {m.weightDtype && <span className="muted">{m.weightDtype} weights</span>}
                {m.weightBytes !== null && (
                  <span className="muted" data-testid="model-file-size">
                    {formatBytes(m.weightBytes)}
                  </span>
                )}
              </header>
              {m.status !== 'ok' ? (
                <p className="notice error">{whyUnusable(m)}</p>
              ) : (
                <p className="muted">{m.path}</p>
              )}
              <footer className="actions">
                <button type="button" disabled={m.status !== 'ok'} onClick={() => void prefetch(m.modelId)}>
                  {ACTION_WORDS.load}
                </button>
                <DeleteModelAction model={m} />
              </footer>
            </article>
          ))}
        </div>
      </Panel>
      <AddModelPanel />
      <Panel title="Converted GGUF models (cache)" className="wide" testId="conversion-cache-panel">
        <ConversionCachePanel />
      </Panel>
      <Panel title="Remote endpoints" className="wide">
        <EndpointsPanel />
      </Panel>
      <Panel title="Residency over time" className="wide">
        <ResidencyTimeline />
      </Panel>
      <Panel title="Remembered context" className="wide">
        <PagesPanel />
      </Panel>
      <Panel title="Problems" className="wide" testId="problems-panel">
        <ProblemsPanel />
      </Panel>
    </div>
  );
}

import { useState } from 'react';
import { isRefTo, variantLabelOf } from '../../../src-main/runtime/model/variant-names';
import { whyUnusable } from '../../../src-main/runtime/model/listing-status';
import type { ModelEntry } from '../../../src-main/service/contract/schemas';
import { useSlice } from '../../store/react';
import { EndpointForm } from '../slots/EndpointForm';
import { statusWords } from '../slots/slot-words';

const MAX_OPTION_CHARS = 70;

/** An option label never wider than the window: long errors are cut here and shown in full on hover. */
function shorten(text: string): string {
  return text.length > MAX_OPTION_CHARS ? `${text.slice(0, MAX_OPTION_CHARS - 1)}…` : text;
}

/**
 * What the picker adds to a variant's name (which is by its weights): their storage where the
 * name does not say it ("int4 + fp32" for q4), and the file's own name where it differs
 * ("file: fp32": `model.onnx`, which the old `name:fp32` id still reaches).
 */
function weightNotes(m: ModelEntry): string[] {
  const label = variantLabelOf(m.variant, m.weightDtype);
  const notes: string[] = [];
  if (m.weightDtype !== null && m.weightDtype !== label) notes.push(m.weightDtype);
  if (m.variant !== null && label !== m.variant) notes.push(`file: ${m.variant}`);
  return notes;
}

/**
 * The model this conversation uses: every variant as "name · variant (weight storage)", each
 * with its slot's status, or why it cannot run (cut to fit; in full on hover); then one
 * group per remote endpoint, its models as remote slots with the endpoint's reachability.
 */
export function ModelPicker() {
  const models = useSlice('slots', (s) => s.models);
  const endpoints = useSlice('slots', (s) => s.endpoints);
  const slots = useSlice('slots', (s) => s.slots);
  const modelId = useSlice('chat', (s) => s.settings.modelId);
  const setModel = useSlice('chat', (s) => s.setModel);
  const statusOf = (id: string) => statusWords(slots.find((slot) => slot.modelId === id)?.status ?? null);
  const usable = models.filter((m) => m.status === 'ok');
  const defaultModelId = useSlice('ui', (s) => s.status?.defaultModelId ?? null);
  // A conversation kept from before may hold a variant's old id: shown as the variant it names.
  const chosen = modelId === null ? '' : (models.find((m) => isRefTo(m, modelId))?.modelId ?? modelId);
  // The runtime's default (Settings → default model) is what a chat with no model runs on.
  const fallback =
    usable.find((m) => m.modelId === defaultModelId) ??
    usable.find((m) => m.isBundled && m.isDefaultVariant) ??
    usable[0];
  // The bundled model is a tiny demo: the picker says so, so nobody mistakes it for a real assistant.
  const label = (m: (typeof models)[number]) =>
    `${m.displayName} (${[m.isBundled ? 'demo' : null, ...weightNotes(m)].filter(Boolean).join(', ')})`.replace(
      ' ()',
      '',
    );
  return (
    <>
      <label className="model-picker">
        Model
        <select
          data-testid="model-picker"
          value={chosen}
          onChange={(event) => setModel(event.target.value || null)}
        >
          <option value="">
            {fallback ? `default: ${label(fallback)} — ${statusOf(fallback.modelId)}` : 'default'}
          </option>
          {models.map((m) => (
            <option
              key={m.modelId}
              value={m.modelId}
              disabled={m.status !== 'ok'}
              title={whyUnusable(m) ?? undefined}
            >
              {shorten(`${label(m)} — ${whyUnusable(m) ?? statusOf(m.modelId)}`)}
            </option>
          ))}
          {endpoints.map((e) => (
            <optgroup key={e.endpointId} label={`${e.name} (remote, ${e.reachability})`}>
              {e.models.map((m) => (
                <option
                  key={m.modelId}
                  value={m.modelId}
                  title={e.lastError ?? `${e.baseUrl} · ${m.serverModelId}`}
                >
                  {shorten(
                    `${m.displayName} — ${e.lastError ? `last error: ${e.lastError}` : e.reachability}`,
                  )}
                </option>
              ))}
              {e.models.length === 0 && (
                <option disabled value={`@${e.endpointId}/`}>
                  {shorten(e.lastError ? `no models: ${e.lastError}` : 'no models listed yet')}
                </option>
              )}
            </optgroup>
          ))}
        </select>
      </label>
    </>
  );
}

/** Adds a remote endpoint without leaving the chat (the same form as in Slots). */
export function AddEndpointHere() {
  const [isOpen, setOpen] = useState(false);
  return (
    <details
      className="add-endpoint"
      open={isOpen}
      onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}
    >
      <summary data-testid="add-endpoint">Add a remote endpoint…</summary>
      <EndpointForm onAdded={() => setOpen(false)} />
    </details>
  );
}

import { useState } from 'react';
import type { ConversationSettings as Settings } from '../../../src-main/service/contract/chat-schemas';
import { useSlice } from '../../store/react';
import { SamplingFields } from './SamplingFields';

const OVERFLOW_LABELS: Record<Settings['contextOverflow'], string> = {
  'drop-oldest': 'Leave out the oldest turns',
  refuse: 'Refuse to send (start a new chat)',
};

/**
 * The open conversation's settings, in a side panel that never blocks the chat: system prompt,
 * sampling (with the values actually used), presets, what to do when the context is full, and
 * saving all of it as the default for new chats.
 */
export function ConversationSettings() {
  const settings = useSlice('chat', (s) => s.settings);
  const setSettings = useSlice('chat', (s) => s.setSettings);
  const close = useSlice('chat', (s) => s.setSettingsOpen);
  const conversationId = useSlice('chat', (s) => s.conversationId);
  const saveAsDefaults = useSlice('chat', (s) => s.saveAsDefaults);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  return (
    <aside className="conversation-settings" aria-label="Conversation settings" data-testid="settings-panel">
      <header className="panel-head">
        <h2>{conversationId ? 'This conversation' : 'New chat'}</h2>
        <button type="button" className="icon" aria-label="Close settings" onClick={() => close(false)}>
          ×
        </button>
      </header>
      <label className="stacked">
        System prompt
        <textarea
          data-testid="system-prompt"
          rows={5}
          placeholder="How the assistant should behave in this conversation (optional)"
          value={settings.systemPrompt}
          onChange={(event) => setSettings({ systemPrompt: event.target.value })}
        />
      </label>
      <Presets />
      <SamplingFields />
      <label className="stacked">
        When the conversation outgrows the model&apos;s context
        <select
          data-testid="context-overflow"
          value={settings.contextOverflow}
          onChange={(event) =>
            setSettings({ contextOverflow: event.target.value as Settings['contextOverflow'] })
          }
        >
          {Object.entries(OVERFLOW_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <div className="settings-actions">
        <button
          type="button"
          data-testid="save-defaults"
          onClick={() =>
            void saveAsDefaults().then(() => setSavedNote('New chats will start with these settings.'))
          }
        >
          Use for new chats
        </button>
        {savedNote && <span className="muted small-text">{savedNote}</span>}
      </div>
    </aside>
  );
}

/** Pick a preset (built-in or saved), or save the current sampling as one. */
function Presets() {
  const presets = useSlice('chat', (s) => s.defaults?.presets ?? []);
  const applyPreset = useSlice('chat', (s) => s.applyPreset);
  const savePreset = useSlice('chat', (s) => s.savePreset);
  const deletePreset = useSlice('chat', (s) => s.deletePreset);
  const [name, setName] = useState('');
  const [picked, setPicked] = useState('');
  const pickedPreset = presets.find((p) => p.name === picked);
  return (
    <div className="presets">
      <label>
        Preset
        <select
          data-testid="preset-picker"
          value={picked}
          onChange={(event) => {
            setPicked(event.target.value);
            applyPreset(event.target.value);
          }}
        >
          <option value="">Choose…</option>
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
              {p.isBuiltIn ? '' : ' (yours)'}
            </option>
          ))}
        </select>
      </label>
      {pickedPreset && !pickedPreset.isBuiltIn && (
        <button
          type="button"
          className="quiet small"
          onClick={() => void deletePreset(picked).then(() => setPicked(''))}
        >
          Delete preset
        </button>
      )}
      <span className="preset-save">
        <input
          aria-label="Preset name"
          placeholder="Save sampling as…"
          value={name}
          maxLength={60}
          onChange={(event) => setName(event.target.value)}
        />
        <button
          type="button"
          className="small"
          disabled={name.trim() === ''}
          onClick={() => void savePreset(name.trim()).then(() => (setPicked(name.trim()), setName('')))}
        >
          Save
        </button>
      </span>
    </div>
  );
}

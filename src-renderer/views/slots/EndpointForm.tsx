import { useState } from 'react';
import type { FormEvent } from 'react';
import { ENGINE_KINDS } from '../../../src-main/runtime/remote/endpoint-input';
import type { EngineKind } from '../../../src-main/runtime/remote/endpoint-input';
import { Notice } from '../../components/Panel';
import { useSlice } from '../../store/react';

/** What each engine choice means for the timings read from it. */
export const ENGINE_LABELS: Record<EngineKind, string> = {
  auto: 'detect from /v1/models',
  'first-frame': 'First Frame (every TTFT part)',
  'llama.cpp': 'llama.cpp server (prompt and decode times)',
  ollama: 'Ollama (native API: load, prompt, decode durations)',
  vllm: 'vLLM (/metrics histograms per run)',
  openai: 'other OpenAI-compatible (usage only)',
};

/**
 * Adds an OpenAI-compatible endpoint: a name, its base URL (…/v1), an optional key (kept in a
 * file only this user can read, never shown again) and how to read its timings. The main
 * process checks the URL (http and https only) and asks its /v1/models at once.
 */
export function EndpointForm(props: { onAdded?: () => void }) {
  const addEndpoint = useSlice('slots', (s) => s.addEndpoint);
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [engine, setEngine] = useState<EngineKind>('auto');
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  // After a failed check the form offers to save anyway (the endpoint is checked again later).
  const [canSaveAnyway, setCanSaveAnyway] = useState(false);
  const submit = async (event: FormEvent | null, saveUnreachable = false) => {
    event?.preventDefault();
    setBusy(true);
    const problem = await addEndpoint({
      name,
      baseUrl,
      apiKey: apiKey.trim() || null,
      engine,
      ...(saveUnreachable ? { saveUnreachable } : {}),
    });
    setBusy(false);
    setError(problem);
    setCanSaveAnyway(problem !== null && problem.startsWith('Nothing was saved'));
    if (problem) return;
    setName('');
    setBaseUrl('');
    setApiKey('');
    props.onAdded?.();
  };
  return (
    <form className="endpoint-form" data-testid="endpoint-form" onSubmit={(e) => void submit(e)}>
      {error && (
        <div className="endpoint-form-error" data-testid="endpoint-form-error" role="alert">
          <Notice tone="error">{error}</Notice>
          {canSaveAnyway && (
            <button type="button" disabled={isBusy} onClick={() => void submit(null, true)}>
              Save anyway
            </button>
          )}
        </div>
      )}
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="GPU box" required />
      </label>
      <label>
        Base URL
        <input
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          placeholder="http://gpu-box:8000/v1"
          required
        />
      </label>
      <label>
        Key
        <input
          type="password"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          placeholder="optional bearer key"
          autoComplete="off"
        />
      </label>
      <label>
        Engine
        <select value={engine} onChange={(e) => setEngine(e.target.value as EngineKind)}>
          {ENGINE_KINDS.map((kind) => (
            <option key={kind} value={kind}>
              {ENGINE_LABELS[kind]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={isBusy}>
        {isBusy ? 'Checking…' : 'Add endpoint'}
      </button>
    </form>
  );
}

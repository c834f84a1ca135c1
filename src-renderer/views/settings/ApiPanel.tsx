import { useEffect, useState } from 'react';
import { useSlice, useStores } from '../../store/react';
import { Notice } from '../../components/Panel';

/**
 * The OpenAI-compatible API: where it listens, and (in the desktop app) the switch that turns
 * it on, off by default, optionally with a bearer key.
 */
export function ApiPanel() {
  const { api } = useStores();
  const status = useSlice('api', (s) => s.status);
  const error = useSlice('api', (s) => s.error);
  const [apiKey, setApiKey] = useState('');
  const [port, setPort] = useState('');
  useEffect(() => void api.getState().open(), [api]);
  const toggle = async () => {
    if (!status) return;
    // Exposing the model to other programs moves only on a real click, never from a script;
    // the desktop app then asks once more in a native dialog.
    if (!status.isEnabled && !navigator.userActivation.isActive) return;
    await api.getState().toggle(port, apiKey);
  };
  if (!status)
    return error ? <Notice tone="error">{error}</Notice> : <p className="muted">Loading API status…</p>;
  const baseUrl = status.baseUrl ?? (status.isEnabled ? `${window.location.origin}/v1` : null);
  return (
    <div className="api-panel" data-testid="api-panel" data-enabled={status.isEnabled}>
      {error && <Notice tone="error">{error}</Notice>}
      <p>
        <b>{status.isEnabled ? 'On' : 'Off'}</b>
        {baseUrl && (
          <>
            {' at '}
            <code>{baseUrl}</code>
          </>
        )}
        {status.isEnabled ? (status.hasApiKey ? ' (bearer key required)' : ' (no key set)') : ''} —{' '}
        {status.note}
      </p>
      {status.isToggleable && !status.isEnabled && (
        <p className="muted" data-testid="api-enable-preview">
          Turning it on listens on <code>127.0.0.1:{port.trim() || status.port || 'a free port'}</code>{' '}
          {apiKey.trim()
            ? 'and requires the bearer key below'
            : 'with no key: any program on this computer will be able to call the model'}
          ; you will be asked to confirm.
        </p>
      )}
      {status.isToggleable && (
        <p className="actions">
          {!status.isEnabled && (
            <>
              <input
                type="number"
                min={0}
                max={65_535}
                placeholder={String(status.port ?? 'any free port')}
                value={port}
                onChange={(e) => setPort(e.target.value)}
                aria-label="API port"
              />
              <input
                type="password"
                placeholder="optional bearer key (8+ characters)"
                value={apiKey}
                onChange={(e) => setApiKey(e.target.value)}
                aria-label="API key"
              />
            </>
          )}
          <button type="button" onClick={() => void toggle()} data-testid="api-toggle">
            {status.isEnabled ? 'Turn off' : 'Turn on'}
          </button>
        </p>
      )}
    </div>
  );
}

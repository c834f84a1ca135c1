import { useCallback, useEffect, useState } from 'react';
import type { ApiStatus } from '../../../src-main/service/contract/methods';
import { useStores } from '../../store/react';
import { Notice } from '../../components/Panel';

/**
 * The OpenAI-compatible API: where it listens, and (in the desktop app) the switch that turns
 * it on, off by default, optionally with a bearer key.
 */
export function ApiPanel() {
  const { bridge } = useStores();
  const [status, setStatus] = useState<ApiStatus | null>(null);
  const [apiKey, setApiKey] = useState('');
  const [port, setPort] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const result = await bridge.call('api.status', {});
    if (result.ok) setStatus(result.value);
    else setError(result.error.message);
  }, [bridge]);
  useEffect(() => void load(), [load]);
  const toggle = async () => {
    if (!status) return;
    // Exposing the model to other programs moves only on a real click, never from a script;
    // the desktop app then asks once more in a native dialog.
    if (!status.isEnabled && !navigator.userActivation.isActive) return;
    const portNumber = Number(port);
    if (port.trim() !== '' && !(Number.isInteger(portNumber) && portNumber >= 0 && portNumber <= 65_535))
      return setError('The port takes a whole number from 0 to 65,535 (0 or empty: any free port).');
    const result = await bridge.call('api.setEnabled', {
      isEnabled: !status.isEnabled,
      apiKey: apiKey.trim() || null,
      ...(port.trim() === '' ? {} : { port: portNumber }),
    });
    setError(result.ok ? null : result.error.message);
    if (result.ok) setStatus(result.value);
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

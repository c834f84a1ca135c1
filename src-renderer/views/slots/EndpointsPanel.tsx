import type { EndpointSnapshot } from '../../../src-main/service/contract/endpoint-schemas';
import { formatClock, formatMs } from '../../components/format';
import { useSlice } from '../../store/react';
import { EndpointForm, ENGINE_LABELS } from './EndpointForm';

/**
 * Remote endpoints as slots: each endpoint's reachability (from its /v1/models), the models it
 * serves (pick them in the chat's model picker), the engine its timings are read as, and the
 * last error a check or an answer met. Adding, checking and removing happen here.
 */
export function EndpointsPanel() {
  const endpoints = useSlice('slots', (s) => s.endpoints);
  const checkEndpoints = useSlice('slots', (s) => s.checkEndpoints);
  return (
    <div className="endpoints-panel" data-testid="endpoints-panel">
      {endpoints.length === 0 ? (
        <p className="muted">
          No remote endpoints. Add a vLLM deployment, a llama.cpp server, Ollama or another First Frame: its
          models become slots you can chat with, with the same timeline.
        </p>
      ) : (
        <>
          <div className="slot-grid">
            {endpoints.map((e) => (
              <EndpointCard key={e.endpointId} endpoint={e} />
            ))}
          </div>
          <p className="actions">
            <button type="button" onClick={() => void checkEndpoints()}>
              Check all again
            </button>
          </p>
        </>
      )}
      <EndpointForm />
    </div>
  );
}

function EndpointCard(props: { endpoint: EndpointSnapshot }) {
  const e = props.endpoint;
  const removeEndpoint = useSlice('slots', (s) => s.removeEndpoint);
  const status =
    e.reachability === 'reachable' ? 'resident' : e.reachability === 'unchecked' ? 'empty' : 'failed';
  return (
    <article className="slot-card remote" data-testid="endpoint-card" data-reachability={e.reachability}>
      <header>
        <span className={`status-badge status-${status}`}>{e.reachability}</span>
        <b>{e.name}</b>
      </header>
      <p>
        <code>{e.baseUrl}</code>
        {e.hasKey && ' · key stored'}
      </p>
      <p className="muted">
        read as {ENGINE_LABELS[e.resolvedEngine]}
        {e.reachability === 'reachable' &&
          e.checkLatencyMs !== null &&
          ` · answered in ${formatMs(e.checkLatencyMs)}`}
        {e.checkedWallMs !== null && ` · checked ${formatClock(e.checkedWallMs)}`}
      </p>
      {e.models.length > 0 && (
        <ul className="remote-models" data-testid="remote-models">
          {e.models.map((m) => (
            <li key={m.modelId}>{m.serverModelId}</li>
          ))}
        </ul>
      )}
      {e.lastError && (
        <p className="notice error wrap" data-testid="endpoint-error">
          {e.reachability === 'reachable' ? `Last answer failed: ${e.lastError}` : e.lastError}
        </p>
      )}
      <footer className="actions">
        <button type="button" onClick={() => void removeEndpoint(e.endpointId)}>
          Remove
        </button>
      </footer>
    </article>
  );
}

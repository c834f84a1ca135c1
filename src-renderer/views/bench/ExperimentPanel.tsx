import { useState } from 'react';
import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings/declaration';
import type { SettingKey } from '../../../src-main/runtime/settings/declaration';
import type { MethodInput } from '../../../src-main/service/contract/methods';
import { NumberField } from '../../components/NumberField';
import { Panel } from '../../components/Panel';

/**
 * Seed 001's experiment from the app: one runtime setting over a few values, the same burst (or
 * Poisson arrivals) replayed under each, each arm stored as a run the Runs view compares.
 */
export function ExperimentPanel(props: { onStart(input: MethodInput<'bench.start'>): Promise<void> }) {
  const [setting, setSetting] = useState<SettingKey>('maxSeats');
  const [values, setValues] = useState('2,4');
  const [arrivals, setArrivals] = useState<'burst' | 'poisson'>('burst');
  const [burstSize, setBurstSize] = useState<number | null>(8);
  const [ratePerS, setRatePerS] = useState<number | null>(4);
  const [numRequests, setNumRequests] = useState<number | null>(16);
  const start = () =>
    props.onStart({
      kind: 'experiment',
      vary: {
        setting,
        values: values
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      },
      numRequests: numRequests ?? undefined,
      ...(arrivals === 'burst' ? { burstSize: burstSize ?? undefined } : { ratePerS: ratePerS ?? undefined }),
    });
  return (
    <Panel title="Experiment: one setting, several values" testId="bench-experiment">
      <p className="muted">
        The same requests replayed under each value; the settings you had come back at the end. Values are
        written as the flag reads them ({SETTINGS[setting].flag}{' '}
        {SETTINGS[setting].format(SETTINGS[setting].defaultValue as never)}).
      </p>
      <label>
        setting
        <select
          data-testid="experiment-setting"
          value={setting}
          onChange={(e) => setSetting(e.target.value as SettingKey)}
        >
          {SETTING_KEYS.map((k) => (
            <option key={k} value={k}>
              {SETTINGS[k].label}
            </option>
          ))}
        </select>
      </label>
      <label>
        values
        <input data-testid="experiment-values" value={values} onChange={(e) => setValues(e.target.value)} />
      </label>
      <label>
        arrivals
        <select value={arrivals} onChange={(e) => setArrivals(e.target.value as 'burst' | 'poisson')}>
          <option value="burst">bursts (next when the last finished)</option>
          <option value="poisson">Poisson</option>
        </select>
      </label>
      {arrivals === 'burst' ? (
        <NumberField label="burst" min={1} max={64} value={burstSize} onChange={setBurstSize} />
      ) : (
        <NumberField label="rate/s" min={0.1} max={100} step={0.1} value={ratePerS} onChange={setRatePerS} />
      )}
      <NumberField label="requests" min={1} max={1000} value={numRequests} onChange={setNumRequests} />
      <button
        type="button"
        className="primary"
        data-testid="bench-start-experiment"
        onClick={() => void start()}
      >
        Run
      </button>
    </Panel>
  );
}

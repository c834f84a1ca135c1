import { SETTING_KEYS, SETTINGS } from '../../../src-main/runtime/settings/declaration';
import type { RunComparison } from '../../../src-main/service/contract/report-schemas';
import { useSlice } from '../../store/react';

/** A setting's name with the unit its recorded values are in ("Memory for conversations (MB)"), unless the name says it. */
function labelOf(key: string): string {
  const setting = SETTINGS[key as keyof typeof SETTINGS];
  if (!setting) return key;
  const isNamed = !setting.unit || setting.label.toLowerCase().includes(setting.unit);
  return isNamed ? setting.label : `${setting.label} (${setting.unit})`;
}

/** How many settings the runs shared shown on one line: the first few by value, then a count. */
const NUM_SHARED_SHOWN = 3;

function sharedSummary(keys: readonly string[], settings: Record<string, string>): string {
  const shown = keys.slice(0, NUM_SHARED_SHOWN).map((k) => `${labelOf(k)} ${settings[k] ?? '?'}`);
  const rest = keys.length - shown.length;
  return `${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`;
}

/**
 * What the compared runs ran with. The settings that differ get a row each, one column per
 * configuration (named by its runs' letters); the settings every run shared fold into one line
 * ("Same in every run: …") that opens into their table, so the figures stay near the top. The
 * weights' content hashes show in Expert; Simple names the models.
 */
export function ConfigurationTable(props: { comparison: RunComparison }) {
  const { configurations, differingKeys } = props.comparison;
  const isExpert = useSlice('ui', (s) => s.preferences.viewMode === 'expert');
  const same = SETTING_KEYS.filter((k) => !differingKeys.includes(k));
  const first = configurations[0]!;
  const models = (c: RunComparison['configurations'][number]) =>
    Object.entries(c.modelRevisions)
      .map(([model, revision]) => (isExpert ? `${model} ${revision.slice(0, 8)}` : model))
      .join(', ') || 'not recorded';
  return (
    <div data-testid="configuration-table">
      {configurations.length === 1 && (
        <p data-testid="configuration-same">
          Runs {first.label} ran with the same settings and model (
          <span data-testid="configuration-models">{models(first)}</span>); only the workload or the moment
          differs.
        </p>
      )}
      {configurations.length > 1 && (
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">what differs</th>
              {configurations.map((c) => (
                <th key={c.label} scope="col">
                  {c.runIds.length > 1 ? `runs ${c.label}` : `run ${c.label}`}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {differingKeys.map((key) => (
              <tr key={key} className="differs" data-differs={true}>
                <th scope="row">{labelOf(key)}</th>
                {configurations.map((c) => (
                  <td key={c.label}>{c.settings[key] ?? 'not recorded'}</td>
                ))}
              </tr>
            ))}
            <tr data-differs={configurations.some((c) => c.servedBy !== first.servedBy)}>
              <th scope="row">Served by</th>
              {configurations.map((c) => (
                <td key={c.label}>{c.servedBy ?? 'this machine'}</td>
              ))}
            </tr>
            <tr>
              <th
                scope="row"
                title="Content hash of each model's weights: the same hash means the same weights"
              >
                {isExpert ? 'Model versions' : 'Models'}
              </th>
              {configurations.map((c) => (
                <td key={c.label} data-testid="configuration-models">
                  {models(c)}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      )}
      {same.length > 0 && (
        <details className="same-settings" data-testid="configuration-shared">
          <summary>Same in every run: {sharedSummary(same, first.settings)}</summary>
          <table className="data-table">
            <tbody>
              {same.map((key) => (
                <tr key={key} data-differs={false}>
                  <th scope="row">{labelOf(key)}</th>
                  <td>{first.settings[key] ?? 'not recorded'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </div>
  );
}

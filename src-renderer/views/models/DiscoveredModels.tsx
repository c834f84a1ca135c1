import { useEffect } from 'react';
import type { DiscoveryState } from '../../../src-main/service/contract/model-schemas';
import { isDiscoveredSource } from '../../../src-main/runtime/model/model-sources';
import { Notice } from '../../components/Panel';
import { useSlice, useStores } from '../../store/react';
import { ModelList } from './ModelList';

const PLACE_WORDS: Record<DiscoveryState['places'][number]['state'], string> = {
  off: 'not read (listing is off)',
  found: 'read',
  absent: 'not on this machine',
  unreadable: 'could not be read',
};

/**
 * Models other programs already keep on this machine (Ollama, LM Studio, the Hugging Face
 * cache): listed only once the user turns it on, read in place, never copied or changed. Each
 * place says what it held, or why it could not be read.
 */
export function DiscoveredModels() {
  const { modelSources } = useStores();
  const found = useSlice('slots', (s) => s.models).filter((m) => isDiscoveredSource(m.source));
  const state = useSlice('modelSources', (s) => s.discovery);
  const problem = useSlice('modelSources', (s) => s.discoveryProblem);
  useEffect(() => void modelSources.getState().openDiscovery(), [modelSources]);
  const toggle = (isEnabled: boolean) => modelSources.getState().setDiscovery(isEnabled);
  return (
    <section className="discovered" data-testid="discovered-models">
      <h3>Already on this machine</h3>
      <label className="checkbox-field">
        <input
          type="checkbox"
          data-testid="discovery-toggle"
          checked={state?.isEnabled ?? false}
          disabled={state === null}
          onChange={(e) => void toggle(e.target.checked)}
        />
        Also list the models Ollama, LM Studio and the Hugging Face cache keep here (read where they are,
        never copied or changed)
      </label>
      {problem && <Notice tone="error">{problem}</Notice>}
      {state?.isEnabled && (
        <ul className="places">
          {state.places.map((place) => (
            <li key={place.source} data-testid="discovery-place" data-state={place.state} title={place.path}>
              <b>{place.label}</b>: {PLACE_WORDS[place.state]}
              {place.state === 'found' && place.numModels !== null
                ? ` · ${place.numModels} ${place.numModels === 1 ? 'model' : 'models'}`
                : ''}
              {place.reason ? ` (${place.reason})` : ''}
            </li>
          ))}
        </ul>
      )}
      {state?.isEnabled && found.length > 0 && <ModelList models={found} />}
    </section>
  );
}

import type { SlotSnapshot } from '../../../src-main/service/contract';
import { formatMs } from '../../components/format';

/**
 * How the slot's last load went, said for people: where the session came from (ONNX Runtime's
 * saved graph, or the model file with the graph saved or not, and why not) and how long it took.
 */
export function describeLastLoad(s: Pick<SlotSnapshot, 'graphCache' | 'graphCacheReason' | 'loadMs'>): {
  text: string;
  title: string | null;
} {
  if (s.loadMs === null || s.graphCache === null) return { text: 'not loaded yet', title: null };
  const took = formatMs(s.loadMs);
  if (s.graphCache === 'hit') return { text: `${took} from the saved optimized graph`, title: null };
  if (s.graphCache === 'saved')
    return { text: `${took} from the model file; optimized graph saved for the next load`, title: null };
  const reason = (s.graphCacheReason ?? '').replace(/^not saved: /, '');
  return {
    text: `${took} from the model file; optimized graph not saved${reason ? `: ${reason}` : ''}`,
    title: s.graphCacheReason,
  };
}

import type { SlotSnapshot } from '../../../src-main/service/contract/schemas';
import { formatMs } from '../../components/format';

/**
 * How the slot's last load went, said for people: where the session came from (ONNX Runtime's
 * saved graph, or the model file with the graph saved or not, and why not) and how long it took.
 */
export function describeLastLoad(
  s: Pick<SlotSnapshot, 'graphCache' | 'graphCacheReason' | 'loadMs'> & Partial<Pick<SlotSnapshot, 'fusion'>>,
): {
  text: string;
  title: string | null;
} {
  if (s.loadMs === null || s.graphCache === null) return { text: 'not loaded yet', title: null };
  const took = formatMs(s.loadMs);
  if (s.graphCache === 'hit') return { text: `${took} from the saved optimized graph`, title: null };
  // A graph fused at load is built from the rewrite, not from the model's own file.
  const source = s.fusion?.status === 'fused' ? 'the graph fused at load' : 'the model file';
  if (s.graphCache === 'saved')
    return { text: `${took} from ${source}; optimized graph saved for the next load`, title: null };
  const reason = (s.graphCacheReason ?? '').replace(/^not saved: /, '');
  return {
    text: `${took} from ${source}; optimized graph not saved${reason ? `: ${reason}` : ''}`,
    title: s.graphCacheReason,
  };
}

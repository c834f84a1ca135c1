import type { SlotSnapshot } from '../../../src-main/service/contract/schemas';
import { describeFusion, detailFusion } from '../../../src-main/runtime/model/fuse-at-load/outcome';
import type { FusionOutcome } from '../../../src-main/runtime/model/fuse-at-load/outcome';
import { useSlice } from '../../store/react';
import { countdown, describeKeepAlive, KEEP_ALIVE_CHOICES } from './keep-alive';
import { describeConversion } from './conversion';
import { describeLastLoad } from './last-load';
import { describePinning } from './pinning';
import { ACTION_WORDS, statusWords } from './slot-words';
import { Figures } from '../../components/Figures';
import { formatBytes, formatClock, formatCount, formatMs } from '../../components/format';
import { useNow } from '../../components/use-ticker';
import type { Figure } from '../../components/Figures';

const short = (revision: string) => revision.slice(0, 10);

/** One slot: status, model and revisions, memory, keep-alive countdown, hits and actions. */
export function SlotCard(props: { slot: SlotSnapshot }) {
  const s = props.slot;
  const now = useNow();
  const isExpert = useSlice('ui', (st) => st.preferences.viewMode === 'expert');
  const weightBytes = useSlice(
    'slots',
    (st) => st.models.find((m) => m.modelId === s.modelId)?.weightBytes ?? null,
  );
  return (
    <article className="slot-card" data-testid="slot-card" data-status={s.status} data-model-id={s.modelId}>
      <header>
        <span className={`status-badge status-${s.status}`}>{statusWords(s.status)}</span>
        <b>{s.displayName}</b>
        {isExpert && <span className="muted">slot {s.slotId}</span>}
      </header>
      {s.failureReason && <p className="notice error">{s.failureReason}</p>}
      <Figures figures={[...fileFigures(weightBytes), ...slotFigures(s, now, isExpert)]} />
      <SlotActions slot={s} />
    </article>
  );
}

/** Statuses whose memory, residency and keep-alive figures describe something held now. */
const HOLDS_MODEL: readonly SlotSnapshot['status'][] = ['resident', 'active'];

/** Figures only Expert shows: revision hashes, how memory is held, the run path, node counts. */
const EXPERT_FIGURES: readonly string[] = ['revisions', 'host memory', 'in memory', 'run path', 'per token'];

/** The engine's term Expert adds after a figure's plain name (one vocabulary, Expert adds detail). */
const FIGURE_TERMS: Readonly<Record<string, string>> = {
  'weights · hardware': 'weights / provider',
  'rewrite for speed': 'graph',
  'memory for conversations': 'K/V',
  'kept loaded': 'keep-alive',
  'processor threads': 'intra-op threads',
};

/** Figures that describe a model held now: an empty or failed slot shows none left from before. */
const HELD_FIGURES: readonly string[] = ['host memory', 'in memory', 'kept loaded', 'processor threads'];

/**
 * The card's figures for the slot's current state only: an empty or failed slot shows no memory,
 * residency or countdown left from before; engine detail and the engine's terms only in Expert.
 */
function slotFigures(s: SlotSnapshot, nowMs: number, isExpert: boolean): Figure[] {
  const isHeld = HOLDS_MODEL.includes(s.status);
  const figures = allFigures(s, nowMs, isExpert);
  return figures
    .filter(
      (f) => (isExpert || !EXPERT_FIGURES.includes(f.label)) && (isHeld || !HELD_FIGURES.includes(f.label)),
    )
    .map((f) =>
      isExpert && FIGURE_TERMS[f.label] ? { ...f, label: `${f.label} (${FIGURE_TERMS[f.label]})` } : f,
    );
}

function allFigures(s: SlotSnapshot, nowMs: number, isExpert: boolean): Figure[] {
  const pinning = describePinning(s);
  const lastLoad = describeLastLoad(s);
  return [
    {
      label: 'revisions',
      value: `model ${short(s.modelRevision)} · tok ${short(s.tokenizerRevision)} · layout ${short(s.layoutRevision)} · slot #${s.slotRevision}`,
      title: `model ${s.modelRevision}\ntokenizer ${s.tokenizerRevision}\nlayout ${s.layoutRevision}`,
    },
    {
      label: 'weights · hardware',
      value: `${s.precision} · ${s.executionProvider}${s.providerUnavailableReason ? ` (${s.providerUnavailableReason})` : ''}`,
      title: 'weight storage read from the graph',
      testId: 'slot-provider',
    },
    ...originFigures(s),
    ...threadFigures(s, isExpert),
    {
      label: 'host memory',
      // A slot built from the graph cache holds no buffer of ours: its line says so, without "0 B".
      value: s.hostBytes > 0 ? `${formatBytes(s.hostBytes)} · ${pinning.text}` : pinning.text,
      ...(pinning.title ? { title: pinning.title } : {}),
    },
    { label: 'in memory', value: s.residentPct === null ? '–' : `${s.residentPct.toFixed(0)}%` },
    {
      label: 'last load',
      value: lastLoad.text,
      ...(lastLoad.title ? { title: lastLoad.title } : {}),
      testId: 'slot-last-load',
    },
    {
      label: 'rewrite for speed',
      value: s.fusion === null ? 'not loaded yet' : describeGraph(s.fusion, isExpert),
      ...(s.fusion ? { title: graphTitle(s.fusion, s.fusionMs) } : {}),
      testId: 'slot-graph',
    },
    { label: 'run path', value: s.kvPath ?? 'not loaded yet', testId: 'slot-kv-path' },
    ...(s.kvBufferBytes === null
      ? []
      : [
          {
            label: 'memory for conversations',
            value: formatBytes(s.kvBufferBytes),
            title:
              "what this slot's K/V buffer allocates now: every seat's whole room, which can exceed the pages the K/V budget counts",
            testId: 'slot-kv-bytes',
          },
        ]),
    {
      label: 'per token',
      value:
        s.decodeNodesPerStep === null ? 'not counted' : `${formatCount(s.decodeNodesPerStep)} graph nodes`,
      title:
        s.decodeNodesReason ??
        'nodes ONNX Runtime runs for each new token, counted in the optimized graph it saved for this slot',
      testId: 'slot-step-nodes',
    },
    {
      label: 'kept loaded',
      value: `${describeKeepAlive(s.keepAlive)} · ${countdown(s.expiresAtWallMs, nowMs)}`,
      testId: 'keep-alive',
    },
    {
      // The same plain words in both modes: a hit is a request that found the model loaded.
      label: 'use',
      value: `found loaded by ${formatCount(s.numHits)} ${s.numHits === 1 ? 'request' : 'requests'} · ${s.numActiveSequences} answering now · last used ${s.lastUsedWallMs ? formatClock(s.lastUsedWallMs) : 'never'}`,
    },
  ];
}

/** Which graph runs, with (in Expert) nodes per decode step before → after when it was fused at load. */
function describeGraph(fusion: FusionOutcome, isExpert: boolean): string {
  const words = describeFusion(fusion);
  if (!isExpert || fusion.status !== 'fused' || fusion.stepNodes === null) return words;
  const { original, fused } = fusion.stepNodes;
  return `${words} · ${formatCount(original)} → ${formatCount(fused)} nodes per token`;
}

/** The graph line's hover text: fusion's details, what the node counts are, and its share of the load. */
function graphTitle(fusion: FusionOutcome, fusionMs: number | null): string {
  const lines = [detailFusion(fusion)];
  if (fusion.status === 'fused' && fusion.stepNodes !== null)
    lines.push(
      "nodes ONNX Runtime ran in one decode step of the exported and of the fused graph in the load's check, as written ('per token' adds the slot's own outputs)",
    );
  if (fusionMs !== null && fusionMs >= 1)
    lines.push(`recognizing, rewriting and checking took ${formatMs(fusionMs)} of the last load`);
  return lines.filter((line) => line !== '').join('\n');
}

/** The model file's size on disk, when the model list knows it (the slot itself does not carry it). */
function fileFigures(weightBytes: number | null): Figure[] {
  return weightBytes === null
    ? []
    : [{ label: 'file size', value: formatBytes(weightBytes), testId: 'slot-file-size' }];
}

/**
 * The processor threads the session computes with, as its last load built it; Expert adds
 * whether they stay ready (spin) while a step computes, which matters from 2 threads on.
 */
function threadFigures(s: SlotSnapshot, isExpert: boolean): Figure[] {
  if (s.numThreads === null) return [];
  const spin =
    !isExpert || s.numThreads < 2 || s.canSpinThreads === null
      ? ''
      : s.canSpinThreads
        ? ' · kept ready while answering (spinning)'
        : ' · sleeping between pieces of work (not spinning)';
  return [
    {
      label: 'processor threads',
      value: `${s.numThreads}${spin}`,
      title: 'set in Settings → Processor threads per model',
      testId: 'slot-threads',
    },
  ];
}

/** A GGUF slot's figures: the conversion while it runs (bytes done), and where its weights come from. */
function originFigures(s: SlotSnapshot): Figure[] {
  const figures: Figure[] = [];
  if (s.conversion)
    figures.push({
      label: 'converting',
      value: describeConversion(s.conversion),
      title:
        'the GGUF file is converted to an ONNX graph once and kept in the graph cache; the file itself is only read',
      testId: 'slot-conversion',
    });
  if (s.weightsOrigin)
    figures.push({ label: 'weights from', value: s.weightsOrigin, testId: 'slot-weights-origin' });
  return figures;
}

function SlotActions(props: { slot: SlotSnapshot }) {
  const s = props.slot;
  const prefetch = useSlice('slots', (st) => st.prefetch);
  const evict = useSlice('slots', (st) => st.evict);
  const keep = useSlice('slots', (st) => st.keep);
  return (
    <footer className="actions">
      <button
        type="button"
        onClick={() => void prefetch(s.modelId)}
        disabled={s.status === 'resident' || s.status === 'active'}
      >
        {ACTION_WORDS.load}
      </button>
      <button
        type="button"
        onClick={() => void evict(s.slotId)}
        disabled={s.status === 'empty' || s.status === 'evicting'}
      >
        {ACTION_WORDS.unload}
      </button>
      <select
        aria-label="Keep alive"
        value=""
        onChange={(e) => void keep(s.slotId, KEEP_ALIVE_CHOICES[Number(e.target.value)]!.keepAlive)}
      >
        <option value="">Keep…</option>
        {KEEP_ALIVE_CHOICES.map((c, i) => (
          <option key={c.label} value={i}>
            {c.label}
          </option>
        ))}
      </select>
    </footer>
  );
}

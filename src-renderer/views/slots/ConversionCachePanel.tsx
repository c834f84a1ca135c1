import { useState } from 'react';
import { Confirm } from '../../components/Confirm';
import { formatBytes } from '../../components/format';
import { useSlice } from '../../store/react';
import { clearedSentence, clearSentence, fileNameOf } from './conversion-cache-words';

/**
 * The GGUF conversion cache: each GGUF model converted to ONNX on its first load keeps a copy
 * about its file's size in the data folder. Shows the bytes per model and clears those no loaded
 * model reads, after a confirmation that says what it frees and what it costs.
 */
export function ConversionCachePanel() {
  const cache = useSlice('slots', (s) => s.conversionCache);
  const clear = useSlice('slots', (s) => s.clearConversionCache);
  const [isConfirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  if (!cache) return <p className="muted">Reading the conversion cache…</p>;
  if (cache.folders.length === 0)
    return (
      <p className="muted" data-testid="conversion-cache-empty">
        No converted GGUF models. A GGUF model is converted to ONNX on its first load and the result is kept
        here{outcome ? `. ${outcome}` : '.'}
      </p>
    );
  const onClear = async () => {
    setConfirming(false);
    const result = await clear();
    setOutcome(typeof result === 'string' ? `Clearing failed: ${result}` : clearedSentence(result));
  };
  return (
    <div data-testid="conversion-cache">
      <p>
        Converted GGUF models take <b data-testid="conversion-cache-bytes">{formatBytes(cache.numBytes)}</b>{' '}
        on disk (a copy about each file&apos;s size, made on its first load).
      </p>
      <ul>
        {cache.folders.map((f, i) => (
          <li key={`${f.sourcePath ?? ''}-${i}`}>
            {fileNameOf(f.sourcePath)}: {formatBytes(f.numBytes)}
            {f.isInUse && <span className="muted"> · in use by a loaded model, kept</span>}
          </li>
        ))}
      </ul>
      {isConfirming ? (
        <Confirm
          placement="row"
          label="Clear cache"
          testId="clear-cache-confirm"
          action="Clear cache"
          actionTestId="clear-cache-yes"
          onConfirm={() => void onClear()}
          onCancel={() => setConfirming(false)}
        >
          {clearSentence(cache)}
        </Confirm>
      ) : (
        <p className="actions">
          <button
            type="button"
            data-testid="clear-cache"
            disabled={cache.numFreeableBytes === 0}
            title={
              cache.numFreeableBytes === 0 ? 'Every converted model is in use by a loaded model' : undefined
            }
            onClick={() => {
              setOutcome(null);
              setConfirming(true);
            }}
          >
            Clear cache…
          </button>
        </p>
      )}
      {outcome && <p data-testid="clear-cache-outcome">{outcome}</p>}
    </div>
  );
}

import { useState } from 'react';
import type { FormEvent } from 'react';
import type { RunSummary } from '../../../src-main/service/contract/report-schemas';

/** A run's name with Rename: an inline field, saved by the service (which trims and bounds it). */
export function RunName(props: { run: RunSummary; onRename(name: string): Promise<string | null> }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  if (draft === null)
    return (
      <span className="run-name" title={JSON.stringify(props.run.config)}>
        {props.run.name}{' '}
        <button
          type="button"
          className="quiet small"
          data-testid="run-rename"
          aria-label={`Rename ${props.run.name}`}
          onClick={() => setDraft(props.run.name)}
        >
          Rename
        </button>
      </span>
    );
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const error = await props.onRename(draft);
    setProblem(error);
    if (!error) setDraft(null);
  };
  return (
    <form className="run-rename" onSubmit={(e) => void save(e)}>
      <input
        aria-label="Run name"
        data-testid="run-name-input"
        value={draft}
        maxLength={200}
        onChange={(e) => setDraft(e.target.value)}
      />
      <button type="submit" className="small">
        Save
      </button>
      <button type="button" className="quiet small" onClick={() => setDraft(null)}>
        Cancel
      </button>
      {problem && <span className="notice error">{problem}</span>}
    </form>
  );
}

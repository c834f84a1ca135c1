import { useState } from 'react';
import type { DragEvent } from 'react';

/** A file picker that also takes a file dropped on it; hands over the file's name and text. */
export function TraceDropZone(props: { onFile(fileName: string, text: string): void; isBusy: boolean }) {
  const [isOver, setIsOver] = useState(false);
  const read = async (file: File | undefined) => {
    if (file) props.onFile(file.name, await file.text());
  };
  const onDrop = (event: DragEvent<HTMLLabelElement>) => {
    event.preventDefault();
    setIsOver(false);
    void read(event.dataTransfer.files[0]);
  };
  return (
    <label
      className={isOver ? 'drop-zone over' : 'drop-zone'}
      data-testid="trace-drop-zone"
      onDragOver={(event) => (event.preventDefault(), setIsOver(true))}
      onDragLeave={() => setIsOver(false)}
      onDrop={onDrop}
    >
      <span>{props.isBusy ? 'Importing…' : 'Drop a JSONL trace here, or click to pick one'}</span>
      <input
        type="file"
        accept=".jsonl,.json,.ndjson,application/x-ndjson,text/plain"
        data-testid="trace-file"
        disabled={props.isBusy}
        onChange={(event) => {
          void read(event.target.files?.[0]);
          event.target.value = '';
        }}
      />
    </label>
  );
}

import { useEffect, useRef, useState } from 'react';

/**
 * The text to render as Markdown: while an answer streams, a new value at most every
 * `intervalMs` (parsing the whole message on every chunk costs quadratic time and steals the
 * CPU the model runs on); the first words at once, and the final text as soon as it ends.
 */
export function useSettledText(text: string, isStreaming: boolean, intervalMs = 100): string {
  const [shown, setShown] = useState('');
  const latest = useRef(text);
  latest.current = text;
  useEffect(() => {
    if (!isStreaming) return;
    const timer = setInterval(() => setShown(latest.current), intervalMs);
    return () => clearInterval(timer);
  }, [isStreaming, intervalMs]);
  return isStreaming && shown !== '' ? shown : text;
}

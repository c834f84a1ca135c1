import { useEffect, useState } from 'react';

/** The wall clock, re-read every `intervalMs` (countdowns, growing timelines). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** Runs `task` now and every `intervalMs` while the component is mounted (polling a view). */
export function usePolling(task: () => void, intervalMs: number): void {
  useEffect(() => {
    task();
    const timer = setInterval(task, intervalMs);
    return () => clearInterval(timer);
  }, [task, intervalMs]);
}

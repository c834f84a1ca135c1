import { useSlice } from '../store/react';

/** Says so when the event feed is down (answers and the dashboard would stop moving). */
export function ConnectionBanner() {
  const connection = useSlice('ui', (s) => s.connection);
  if (connection !== 'lost') return null;
  return (
    <div className="banner" role="status">
      Lost the connection to First Frame; reconnecting…
    </div>
  );
}

import type { Versions } from '../../store/chat-items';
import { useSlice } from '../../store/react';

/** "‹ 2 / 3 ›": browse the versions of a turn (regenerated answers, edited questions). */
export function VersionSwitcher(props: { versions: Versions; isBusy: boolean }) {
  const selectVersion = useSlice('chat', (s) => s.selectVersion);
  const { versionIds, version } = props.versions;
  if (versionIds.length < 2) return null;
  const go = (to: number) => {
    const id = versionIds[to - 1];
    if (id) void selectVersion(id);
  };
  const canGo = (to: number) =>
    !props.isBusy && to >= 1 && to <= versionIds.length && versionIds[to - 1] !== null;
  return (
    <span className="versions" data-testid="message-versions">
      <button
        type="button"
        className="quiet small"
        aria-label="Previous version"
        data-testid="version-previous"
        disabled={!canGo(version - 1)}
        onClick={() => go(version - 1)}
      >
        ‹
      </button>
      <span className="version-label">
        {version} / {versionIds.length}
      </span>
      <button
        type="button"
        className="quiet small"
        aria-label="Next version"
        data-testid="version-next"
        disabled={!canGo(version + 1)}
        onClick={() => go(version + 1)}
      >
        ›
      </button>
    </span>
  );
}

/**
 * Puts text on the clipboard. The async Clipboard API needs a secure context and, in Electron,
 * the clipboard-sanitized-write permission the shell grants; where it is missing the old
 * selection-copy path is tried. Resolves true when the text was copied.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Falls through to the selection copy below: some contexts lack the async API.
  }
  const area = Object.assign(document.createElement('textarea'), { value: text, readOnly: true });
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const isCopied = document.execCommand('copy');
  area.remove();
  return isCopied;
}

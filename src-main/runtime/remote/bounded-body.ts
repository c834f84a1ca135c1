/** A response body read up to a cap: its text and whether more was left unread. */
export interface BoundedBody {
  text: string;
  isTruncated: boolean;
}

/**
 * Reads at most `maxBytes` of a response's body as UTF-8, then cancels the rest (the connection
 * is closed instead of read to its end), so a server's body costs at most `maxBytes` whatever it
 * sends. A body that breaks mid-read keeps what arrived, with the reason appended.
 */
export async function readBounded(response: Response, maxBytes: number): Promise<BoundedBody> {
  if (!response.body) return { text: '', isTruncated: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let numBytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode(), isTruncated: false };
      const numBytesLeft = maxBytes - numBytes;
      text += decoder.decode(value.subarray(0, numBytesLeft), { stream: true });
      numBytes += Math.min(value.byteLength, numBytesLeft);
      if (value.byteLength > numBytesLeft) {
        await reader.cancel().catch(() => undefined); // the part read is what we wanted
        return { text: text + decoder.decode(), isTruncated: true };
      }
    }
  } catch (error) {
    return { text: `${text}(body unreadable: ${(error as Error).message})`, isTruncated: true };
  }
}

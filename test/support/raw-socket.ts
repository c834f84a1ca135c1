import { connect } from 'node:net';

/**
 * Sends `head` (a request line and headers, CRLF-separated, ending in a blank line) over a raw
 * TCP socket and resolves with everything the server wrote before closing or going quiet.
 * Node's http client validates what it sends; a hostile client does not, and neither does this.
 */
export function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is all a test needs: the server keeps the connection alive otherwise.
      if (Buffer.concat(chunks).includes('\r\n\r\n') && isComplete(Buffer.concat(chunks).toString('latin1')))
        socket.end();
    });
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(head);
  });
}

/** True once the response's declared body (Content-Length, or chunked) has fully arrived. */
function isComplete(text: string): boolean {
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split);
  const body = text.slice(split + 4);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return Buffer.byteLength(body, 'latin1') >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return body.endsWith('0\r\n\r\n');
  return false;
}

/** The status code of a raw response (0 when there is none). */
export function statusOfRaw(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}

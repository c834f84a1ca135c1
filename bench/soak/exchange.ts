import { connect } from 'node:net';

/** One HTTP answer as the soak looks at it. */
export interface Answer {
  status: number;
  text: string;
}

/** Sends a request and reads the whole answer; a transport failure resolves as status 0 with its code. */
export async function exchange(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(120_000) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { status: 0, text: cause?.code ?? (error as Error).name };
  }
}

/** A JSON POST. */
export function postJson(url: string, body: unknown): Promise<Answer> {
  return exchange(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Writes a raw request head over TCP (a hostile client does not validate) and reads the status code. */
export function rawStatus(port: number, head: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.on('error', () => undefined);
    socket.write(head);
  });
}

/** Reads a streamed completion until its first chunk arrives, then hangs up. */
export async function hangUpAfterFirstChunk(url: string, body: unknown): Promise<'hung up' | number> {
  const abort = new AbortController();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: abort.signal,
    });
    if (response.status !== 200 || !response.body) return response.status;
    const reader = response.body.getReader();
    await reader.read();
    abort.abort();
    return 'hung up';
  } catch {
    return 0;
  }
}

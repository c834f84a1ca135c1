import type { ServerResponse } from 'node:http';
import type { Frame } from '../../service/openai/types';
import { sendJson } from '../http/respond';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * Writes a call's frames to one HTTP response: `json` as a whole response, `event` as a
 * server-sent event `data: {…}\n\n` written at once (no batching: each chunk is flushed as
 * it is made), `end` as `data: [DONE]\n\n`. Once the client is gone, frames are dropped.
 */
export class FrameWriter {
  private isGone = false;

  constructor(private readonly res: ServerResponse) {}

  /** True once the response was ended by a frame (not by the client going away). */
  get isEnded(): boolean {
    return this.res.writableEnded;
  }

  /** The client went away: nothing more is written. */
  markGone(): void {
    this.isGone = true;
  }

  /** The FrameSink the service writes to. */
  readonly write = (frame: Frame): void => {
    if (this.isGone || this.res.writableEnded || this.res.destroyed) return;
    if (frame.kind === 'json') {
      for (const [name, value] of Object.entries(frame.headers)) this.res.setHeader(name, value);
      return sendJson(this.res, frame.status, frame.body);
    }
    if (!this.res.headersSent) this.res.writeHead(200, SSE_HEADERS);
    if (frame.kind === 'event') this.res.write(`data: ${JSON.stringify(frame.data)}\n\n`);
    else this.res.end('data: [DONE]\n\n');
  };
}

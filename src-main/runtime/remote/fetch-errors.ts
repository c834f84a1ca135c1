/**
 * A failed fetch in words a user can act on. Node's fetch throws `TypeError: fetch failed`
 * with the socket error as its cause; the cause's code says what happened.
 */
export function describeFetchError(error: unknown, url: string): string {
  const where = safeOrigin(url);
  const err = error as Error & { cause?: { code?: string; message?: string } };
  if (err?.name === 'AbortError' || err?.name === 'TimeoutError') return `${where} did not answer in time`;
  const code = err?.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where}: is the server running and listening there?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host of ${where} not found`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `${where} closed the connection`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connecting to ${where} timed out`;
    default:
      return `${where}: ${err?.cause?.message ?? err?.message ?? String(error)}`;
  }
}

/** Origin of a URL for messages (never a path with secrets, never credentials). */
export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the endpoint';
  }
}

/**
 * The message of an HTTP error answer: OpenAI's `{error: {message}}`, Ollama's `{error}`,
 * or the first line of the text, prefixed with the status and what it usually means.
 */
export function describeHttpError(status: number, bodyText: string): string {
  let message = bodyText.trim().split('\n')[0]?.slice(0, 300) ?? '';
  try {
    const body = JSON.parse(bodyText) as { error?: { message?: string } | string; message?: string };
    message = (typeof body.error === 'string' ? body.error : body.error?.message) ?? body.message ?? message;
  } catch {
    // Not JSON: the text itself is the message (proxies answer in HTML or plain text).
  }
  const meaning =
    status === 401 || status === 403
      ? 'the endpoint refused the key (set or fix it in the endpoint settings)'
      : status === 404
        ? 'not found at this endpoint (wrong base URL or model name?)'
        : status === 429
          ? 'the endpoint is rate limiting'
          : status >= 500
            ? 'the server failed'
            : 'the endpoint refused the request';
  return `HTTP ${status}: ${meaning}${message ? ` — ${message}` : ''}`;
}

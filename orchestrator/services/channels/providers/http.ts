// What the HTTP channel types (webhook, slack, discord, ntfy) share: one POST with the
// queue's signal, and the receiver's answer turned into an outcome an operator can read.
import { PACKAGE_VERSION } from '../../../../common/node/package-root.js';
import type { ProviderOutcome } from '../provider.js';

export const USER_AGENT = `Corral/${PACKAGE_VERSION}`;

/** How much of a refusing receiver's answer goes into the detail: enough for Slack's "invalid_token" or a JSON error. */
const BODY_EXCERPT = 200;

/** The same request gets the same answer again, except for these (timeout, rate limit) and 5xx. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export async function postJson(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<ProviderOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Headers.set is case-insensitive, so an extra "User-Agent" replaces ours instead of joining it.
  const all = new Headers({ 'user-agent': USER_AGENT });
  try {
    for (const [name, value] of Object.entries(headers)) all.set(name, value);
    all.set('content-type', 'application/json');
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: all,
      signal,
      // Following a redirect would turn the POST into a GET (301/302) or resend a signed body
      // to a host nobody configured; the operator should put the final URL in the channel.
      redirect: 'manual',
    });
    const text = await readHead(res);
    if (res.status >= 200 && res.status < 300) return { ok: true, detail: `HTTP ${res.status}`, status_code: res.status, duration_ms: elapsed() };
    let detail = `HTTP ${res.status}`;
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      detail += `: redirects are not followed${location ? `; the receiver points to ${location.slice(0, BODY_EXCERPT)}` : ''}`;
    } else if (text.trim() !== '') {
      detail += `: ${excerpt(text)}`;
    }
    return { ok: false, detail, status_code: res.status, duration_ms: elapsed(), retry: retryableStatus(res.status) };
  } catch (err) {
    return { ok: false, detail: describeFetchError(err, url, signal), status_code: null, duration_ms: elapsed(), retry: true };
  }
}

/** The start of the answer only: a URL that points at a large download must not be read whole. */
async function readHead(res: Response, maxBytes = 4096): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut off midway still has a status worth reporting.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > BODY_EXCERPT ? `${oneLine.slice(0, BODY_EXCERPT)}…` : oneLine;
}

/** undici says only "fetch failed"; the reason is in `cause` (ECONNREFUSED, ENOTFOUND, a TLS error...). */
export function describeFetchError(err: unknown, url: string, signal: AbortSignal): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // keep the URL as given
  }
  if (signal.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
    return `no answer from ${host} in time: gave up (${reason})`;
  }
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return `cannot connect to ${host}: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve the host name of ${host} (${code})`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `${host} closed the connection before answering`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `cannot connect to ${host}: timed out`;
  const message = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return `request to ${host} failed: ${message}${code && !message.includes(code) ? ` (${code})` : ''}`;
}

/** Shortens to at most max characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

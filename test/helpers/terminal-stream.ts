// A terminal stream client as a browser would be one: a WebSocket on
// /api/v1/terminal/session/{id}/stream, binary frames for bytes, text frames for control.
import WebSocket from 'ws';

export interface StreamControlMessage {
  type: string;
  [field: string]: unknown;
}

export interface StreamClient {
  ws: WebSocket;
  /** Everything received so far, as text (only while `keep` is on). */
  text(): string;
  /** Bytes received so far. */
  bytes(): number;
  controls: StreamControlMessage[];
  /** Stop keeping the received bytes (count only; the last 4 KiB stay for waitFor). */
  countOnly(): void;
  send(text: string): void;
  sendControl(message: unknown): void;
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  waitForControl(type: string, timeoutMs?: number): Promise<StreamControlMessage>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export interface Refusal {
  status: number;
  body: string;
}

/** Connects; resolves with the client once open, or rejects with the HTTP refusal. */
export function connectStream(baseUrl: string, sessionId: string, auth: { ticket?: string; token?: string } = {}): Promise<StreamClient> {
  const url = new URL(`/api/v1/terminal/session/${sessionId}/stream`, baseUrl.replace(/^http/, 'ws'));
  if (auth.ticket !== undefined) url.searchParams.set('ticket', auth.ticket);
  const ws = new WebSocket(url, { headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {}, perMessageDeflate: false });
  let chunks: Buffer[] = [];
  let keep = true;
  let tail = '';
  let total = 0;
  const controls: StreamControlMessage[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  ws.on('message', (data, isBinary) => {
    const buf = data as Buffer;
    if (isBinary) {
      total += buf.length;
      if (keep) chunks.push(buf);
      tail = (tail + buf.subarray(-4096).toString('latin1')).slice(-4096);
    } else {
      controls.push(JSON.parse(buf.toString('utf8')) as StreamControlMessage);
    }
    wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      wake();
    });
  });
  const text = () => (keep ? Buffer.concat(chunks).toString('utf8') : tail);
  const until = <T>(probe: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const v = probe();
        if (v !== undefined) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(v);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; received so far: ${JSON.stringify(text().slice(-500))}, controls ${JSON.stringify(controls)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const client: StreamClient = {
    ws,
    text,
    bytes: () => total,
    controls,
    countOnly() {
      keep = false;
      chunks = [];
    },
    send: (t) => ws.send(Buffer.from(t, 'utf8'), { binary: true }),
    sendControl: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m), { binary: false }),
    waitFor: (pattern, timeoutMs = 10_000) =>
      until(() => {
        const t = text();
        const m = typeof pattern === 'string' ? (t.includes(pattern) ? pattern : undefined) : pattern.exec(t)?.[0];
        return m;
      }, String(pattern), timeoutMs),
    waitForControl: (type, timeoutMs = 10_000) => until(() => controls.find((c) => c.type === type), `control ${type}`, timeoutMs),
    closed,
    close: () => ws.close(),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => {
        reject(Object.assign(new Error(`refused with ${res.statusCode}: ${body}`), { status: res.statusCode ?? 0, body }));
        ws.terminate();
      });
    });
    ws.on('error', (err) => reject(err));
  });
}

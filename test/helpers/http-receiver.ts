// A real HTTP server on 127.0.0.1 that records what channel providers (and the delivery
// queue) send it, so tests check the bytes on the wire instead of a faked fetch.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Recorded {
  method: string;
  /** Path and query, e.g. "/hook?x=1". */
  path: string;
  /** Lower-case names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The body exactly as received (a signature is computed over these bytes). */
  raw: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** When the request was complete (ms since the epoch). */
  at: number;
}

export interface HttpReceiver {
  /** Base URL, e.g. "http://127.0.0.1:41234" (no trailing slash). */
  url: string;
  /** Every complete request, in arrival order (hung ones included). */
  requests: Recorded[];
  /** Answer every following request with this status and body (default 200, "ok"). */
  respondWith(status: number, body?: string): void;
  /** true: accept requests but never answer them (until hang(false) or close()); false: answer again. */
  hang(on: boolean): void;
  /** Resolves with the requests once at least n arrived; rejects after timeoutMs. */
  waitFor(n: number, timeoutMs?: number): Promise<Recorded[]>;
  /** Stops listening and drops every open connection, hung ones included. */
  close(): Promise<void>;
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const requests: Recorded[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const hung = new Set<ServerResponse>();
  let status = 200;
  let answer = 'ok';
  let hanging = false;

  const reply = (res: ServerResponse) => {
    // 204 and 304 must not carry a body.
    if (status === 204 || status === 304) res.writeHead(status).end();
    else res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(answer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, json, at: Date.now() });
      for (const w of [...waiters]) w();
      if (hanging) {
        hung.add(res);
        res.on('close', () => hung.delete(res));
        return;
      }
      reply(res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(s, body = s === 200 ? 'ok' : `status ${s}`) {
      status = s;
      answer = body;
    },
    hang(on) {
      hanging = on;
      // Releasing a hang answers the held requests, so a client still waiting finishes.
      if (!on) for (const res of [...hung]) reply(res);
    },
    waitFor(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`HTTP receiver: ${requests.length} of ${n} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

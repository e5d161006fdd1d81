// Reads GET /api/v1/events (server-sent events) the way the renderer does: fetch with the
// bearer header and a body reader, split into {type, data} messages.
export interface StreamMessage {
  type: string;
  data: unknown;
}

export interface EventStreamReader {
  status: number;
  messages: StreamMessage[];
  /** Resolves with the first message (new or already received) that passes the test. */
  next(test: (m: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  close(): void;
}

export async function openEventStream(baseUrl: string, token: string | undefined): Promise<EventStreamReader> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/v1/events`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: abort.signal });
  const messages: StreamMessage[] = [];
  const waiters = new Set<() => void>();
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (type && data !== undefined) messages.push({ type, data: JSON.parse(data) as unknown });
            for (const w of waiters) w();
          }
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return {
    status: res.status,
    messages,
    next(test, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(test);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching stream message in ${timeoutMs} ms; got: ${messages.map((m) => m.type).join(', ')}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => abort.abort(),
  };
}

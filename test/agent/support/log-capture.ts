// A pino logger whose JSON lines land in an array, so tests can assert on what the agent logged.
import { pino, type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface CapturedLog {
  logger: Logger;
  lines: LogLine[];
  /** Every line as text, for "never contains" checks. */
  text(): string;
  find(predicate: (line: LogLine) => boolean): LogLine | undefined;
  waitFor(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export const LEVEL = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

export function captureLog(level = 'debug'): CapturedLog {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const waiters: { predicate: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  const logger = pino(
    { level },
    {
      write(chunk: string) {
        raw.push(chunk);
        const line = JSON.parse(chunk) as LogLine;
        lines.push(line);
        for (const w of [...waiters]) {
          if (w.predicate(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      },
    },
  );
  return {
    logger,
    lines,
    text: () => raw.join(''),
    find: (predicate) => lines.find(predicate),
    waitFor(predicate, timeoutMs = 5000) {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line in ${timeoutMs} ms; got:\n${raw.join('')}`)), timeoutMs);
        waiters.push({ predicate, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
  };
}

// Structured JSON lines on stdout (journald and `docker logs` keep them as they are).
// pino because the orchestrator already logs through it (Fastify), so both ends of the
// link write the same format: {"level":30,"time":...,"msg":"..."}.
// Key material never reaches a logger: nothing passes keys or signatures to it.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function createLogger(level: string = 'info', destination?: DestinationStream): Logger {
  const options = { level, base: { name: 'corral-agent' } };
  return destination ? pino(options, destination) : pino(options);
}

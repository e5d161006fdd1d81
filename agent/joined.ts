// state.json: the orchestrator this agent joined through discovery. Kept so that a
// restarted agent rejoins the same orchestrator (and keeps pinning the same certificate)
// instead of waiting for the next probe, or joining whichever orchestrator probes first.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './logger.js';
import { normaliseOrchestratorUrl, parseCertFingerprint } from './link/url.js';
import { writeFileAtomic } from './state-dir.js';

export const STATE_FILE = 'state.json';

export interface JoinedOrchestrator {
  orchestrator: string;
  /** Null only for a plain-http orchestrator. */
  fingerprint: string | null;
  joined_at: string;
  /** Address the probe came from, for the operator reading the file. */
  heard_from: string;
}

/** Reads state.json; a damaged file is logged and treated as "not joined" (the agent then listens again). */
export function readJoined(stateDir: string, log: Logger): JoinedOrchestrator | null {
  const file = path.join(stateDir, STATE_FILE);
  if (!existsSync(file)) return null;
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Partial<JoinedOrchestrator>;
    if (typeof doc.orchestrator !== 'string') throw new Error('no orchestrator in it');
    const orchestrator = normaliseOrchestratorUrl(doc.orchestrator);
    const fingerprint = typeof doc.fingerprint === 'string' ? parseCertFingerprint(doc.fingerprint) : null;
    if (orchestrator.startsWith('https:') && !fingerprint) throw new Error('an https orchestrator without a fingerprint');
    return { orchestrator, fingerprint, joined_at: String(doc.joined_at ?? ''), heard_from: String(doc.heard_from ?? '') };
  } catch (err) {
    log.error({ file, err: (err as Error).message }, 'ignoring a damaged state file; the agent will wait for discovery again');
    return null;
  }
}

export function writeJoined(stateDir: string, joined: JoinedOrchestrator): void {
  writeFileAtomic(path.join(stateDir, STATE_FILE), JSON.stringify(joined, null, 2) + '\n', 0o600);
}

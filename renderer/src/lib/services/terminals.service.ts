import { AsciicastError, parseAsciicast, type Asciicast } from '../../../../common/asciicast.js';
import type { List } from '../../../../common/schemas/shared.js';
import type { OpenTerminalRequest, OpenTerminalResponse, TerminalListQuery, TerminalSession } from '../api/client.js';
import { ApiError, LocalError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

export const TERMINALS_PAGE_SIZE = 100;

export interface LoadOptions {
  /** A background refresh: failures other than an ended session are not announced. */
  quiet?: boolean;
}

/** Opens a pty on the agent; the answer carries the single-use ticket for the stream. */
export async function openTerminal(nodeId: string, request: OpenTerminalRequest, form?: FormErrors): Promise<OpenTerminalResponse | undefined> {
  try {
    const opened = await api.openTerminal(nodeId, request);
    form?.clear();
    return opened;
  } catch (err) {
    handleError(err, `Opening a terminal on ${nodeId}`, form);
    return undefined;
  }
}

export async function loadTerminals(query: TerminalListQuery, options: LoadOptions = {}): Promise<List<TerminalSession> | undefined> {
  try {
    return await api.listTerminals({ limit: TERMINALS_PAGE_SIZE, ...query });
  } catch (err) {
    if (!options.quiet || (err instanceof ApiError && err.status === 401)) handleError(err, 'Loading terminal sessions');
    return undefined;
  }
}

/**
 * Ends a session (kills its pty). `ask` puts a confirmation first (the sessions page);
 * the terminal's own Disconnect button does not ask. `quiet` is for clean-up when a
 * page closes: nothing is announced, an already closed session is fine.
 */
export async function closeTerminal(session: Pick<TerminalSession, 'session_id' | 'node_id' | 'operator_id'>, options: { ask?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  if (options.ask) {
    const ok = await confirmAction({
      title: `Close this terminal on ${session.node_id}?`,
      message: `The shell ${session.operator_id} opened is killed, with anything still running in it. The transcript so far is kept.`,
      confirmLabel: 'Close session',
      danger: true,
    });
    if (!ok) return false;
  }
  try {
    await api.closeTerminal(session.session_id);
    if (options.ask) notices.success(`Terminal on ${session.node_id} closed`);
    return true;
  } catch (err) {
    if (!options.quiet) handleError(err, `Closing the terminal on ${session.node_id}`);
    return false;
  }
}

/** Saves a session's transcript as <session>.cast (the download needs the bearer token, so it goes through a Blob). */
export async function downloadTranscript(session: TerminalSession): Promise<boolean> {
  try {
    const blob = await api.terminalTranscript(session.session_id);
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${session.session_id}.cast`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return true;
  } catch (err) {
    handleError(err, `Downloading the transcript of ${session.session_id}`);
    return false;
  }
}

/** A session's transcript, parsed for the replay player. */
export async function loadTranscript(session: TerminalSession): Promise<Asciicast | undefined> {
  try {
    const text = await (await api.terminalTranscript(session.session_id)).text();
    try {
      return parseAsciicast(text, { tolerateTimeSkew: true });
    } catch (err) {
      if (err instanceof AsciicastError) throw new LocalError('This transcript cannot be replayed', `It is not a valid asciicast v2 file (${err.message}). Download it to look at it.`);
      throw err;
    }
  } catch (err) {
    handleError(err, `Replaying the terminal session ${session.session_id}`);
    return undefined;
  }
}

/** Why a session ended, in words, from its record or the stream's last message. */
export function describeEnd(end: { code?: number | null; signal?: number | null; reason?: string | null; message?: string | null }): string {
  if (end.message) return end.message;
  if (end.signal) return `The shell was killed by signal ${end.signal}.`;
  if (end.code !== undefined && end.code !== null) return `The shell exited with code ${end.code}.`;
  return REASONS[end.reason ?? ''] ?? (end.reason ? `The session closed (${end.reason}).` : 'The connection to the terminal was lost.');
}

const REASONS: Record<string, string> = {
  exit: 'The shell exited.',
  closed: 'The session was closed (Disconnect here, or Close on the Terminals page).',
  idle: 'The session was closed after 30 minutes without input.',
  'agent-disconnected': 'The agent disconnected, which ended the session.',
  'operator-removed': 'The operator who opened it was removed.',
  'not-attached': 'No browser attached to the session in time.',
  'stream-closed': 'The connection to the terminal closed, which ended the session.',
  'open-failed': 'The agent could not start the shell.',
  'open-timeout': 'The agent did not start the shell in time.',
  shutdown: 'The orchestrator shut down, which ended the session.',
};

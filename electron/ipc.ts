// The main-process side of the preload bridge (common/desktop-bridge.ts).
// Every call is checked: it must come from a frame on the orchestrator's
// origin, and a message to sign must be an authentication challenge.
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { CHALLENGE_PREFIX } from '../common/auth.js';
import { DESKTOP_CHANNELS, MAX_CHALLENGE_LENGTH, type LocalOperator } from '../common/desktop-bridge.js';
import type { LocalAdminKey } from './local-key.js';
import { isSameOrigin } from './security.js';

/** The first admin made from --admin-key (and so from the desktop key) has this id. */
const LOCAL_OPERATOR_ID = 'admin';

function assertFromUi(event: IpcMainInvokeEvent, origin: string): void {
  if (!isSameOrigin(event.senderFrame?.url, origin)) throw new Error('refused: the request did not come from the Corral UI');
}

function assertChallenge(message: unknown): asserts message is string {
  if (typeof message !== 'string') throw new TypeError('the message to sign must be a string');
  if (message.length > MAX_CHALLENGE_LENGTH) throw new RangeError(`the message to sign is longer than ${MAX_CHALLENGE_LENGTH} characters`);
  if (!message.startsWith(CHALLENGE_PREFIX) || message.length === CHALLENGE_PREFIX.length) {
    throw new Error(`refused: only authentication challenges ("${CHALLENGE_PREFIX}" + nonce) are signed`);
  }
}

export function registerDesktopIpc(origin: string, key: LocalAdminKey | null): void {
  ipcMain.handle(DESKTOP_CHANNELS.signChallenge, (event, message: unknown): string => {
    assertFromUi(event, origin);
    assertChallenge(message);
    if (!key) throw new Error('this desktop has no local admin key; sign in with the setup link or a browser key');
    return key.sign(message);
  });
  ipcMain.handle(DESKTOP_CHANNELS.localOperator, (event): LocalOperator | null => {
    assertFromUi(event, origin);
    return key ? { operator_id: LOCAL_OPERATOR_ID, public_key: key.publicKeyLine } : null;
  });
}

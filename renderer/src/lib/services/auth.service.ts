// Signing in and out: challenge, sign, verify, with whichever key the operator has.
import { api } from '../api/index.js';
import { ApiError, LocalError } from '../api/errors.js';
import { generateBrowserKey, importOpenSshKey, signWith } from '../crypto/browser-keys.js';
import { listKeys, loadKey, saveKey, storeId, type StoredKey } from '../crypto/key-store.js';
import { desktopBridge } from '../../../../common/desktop-bridge.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { session } from '../state/session.svelte.js';
import { handleError } from '../utils/handle-error.js';

/** Signs the challenge message; returns a base64 raw signature or an armored SSHSIG. */
export type Signer = (message: string) => Promise<string>;

const LAST_OPERATOR_KEY = 'corral.last-operator';
// Set by an explicit sign-out in this tab, so the desktop app does not sign straight back in.
const SIGNED_OUT_KEY = 'corral.signed-out';

/** Whether the login page may sign in through the desktop bridge on its own. */
export function mayAutoSignIn(): boolean {
  try {
    return sessionStorage.getItem(SIGNED_OUT_KEY) === null;
  } catch {
    return true;
  }
}

function markSignedOut(value: boolean): void {
  try {
    if (value) sessionStorage.setItem(SIGNED_OUT_KEY, '1');
    else sessionStorage.removeItem(SIGNED_OUT_KEY);
  } catch {
    // the desktop app may then sign in again on its own; harmless
  }
}

export function lastOperatorId(): string {
  try {
    return localStorage.getItem(LAST_OPERATOR_KEY) ?? '';
  } catch {
    return '';
  }
}

function rememberOperatorId(operatorId: string): void {
  try {
    localStorage.setItem(LAST_OPERATOR_KEY, operatorId);
  } catch {
    // only a convenience
  }
}

async function authenticate(operatorId: string, sign: Signer): Promise<void> {
  const challenge = await api.challenge({ operator_id: operatorId });
  const signature = await sign(challenge.message);
  session.begin(await api.verify({ operator_id: operatorId, nonce: challenge.nonce, signature }));
  rememberOperatorId(operatorId);
  markSignedOut(false);
  session.describe(await api.whoami());
}

/** Picks up a token left in this tab's sessionStorage; false when there is none or it expired. */
export async function restoreSession(): Promise<boolean> {
  if (!session.token) return false;
  try {
    session.describe(await api.whoami());
    return true;
  } catch (err) {
    session.end();
    // An expired token just means signing in again; anything else is worth showing.
    if (!(err instanceof ApiError && err.status === 401)) handleError(err, 'Restoring the session');
    return false;
  }
}

export async function browserKeyFor(operatorId: string): Promise<StoredKey | undefined> {
  try {
    return operatorId ? await loadKey(operatorId) : undefined;
  } catch {
    return undefined;
  }
}

export async function browserKeys(): Promise<StoredKey[]> {
  try {
    return await listKeys();
  } catch {
    return [];
  }
}

export async function signInWithBrowserKey(operatorId: string): Promise<boolean> {
  try {
    const key = await loadKey(operatorId);
    if (!key) throw new LocalError('No key in this browser', `This browser holds no key for ${operatorId}. Paste a private key, or generate one and ask an admin to add it.`);
    await authenticate(operatorId, (message) => signWith(key.privateKey, message));
    return true;
  } catch (err) {
    handleError(err, `Signing in as ${operatorId}`);
    return false;
  }
}

/**
 * Imports a pasted OpenSSH private key, signs in with it, and only then keeps
 * it (non-extractable) in IndexedDB. The text itself is never stored.
 */
export async function signInWithPrivateKey(operatorId: string, privateKeyText: string, form?: FormErrors): Promise<boolean> {
  try {
    const key = await importOpenSshKey(operatorId, privateKeyText);
    await authenticate(operatorId, (message) => signWith(key.privateKey, message));
    await saveKey(key);
    notices.success('Key saved in this browser', `Next time, sign in as ${operatorId} without pasting the key.`);
    return true;
  } catch (err) {
    handleError(err, `Signing in as ${operatorId} with a private key`, form);
    return false;
  }
}

export async function signInWithDesktop(): Promise<boolean> {
  const bridge = desktopBridge();
  if (!bridge) return false;
  try {
    // null: this desktop has no local key (no OS key store), so it signs in like a browser.
    const local = await bridge.localOperator();
    if (!local) return false;
    await authenticate(local.operator_id, (message) => bridge.signChallenge(message));
    return true;
  } catch (err) {
    handleError(err, "Signing in with the desktop app's key");
    return false;
  }
}

/** Makes a fresh browser key for an operator and keeps it; its public line goes to an admin. */
export async function createBrowserKey(operatorId: string): Promise<StoredKey | undefined> {
  try {
    const key = await generateBrowserKey(operatorId);
    await saveKey(key);
    return key;
  } catch (err) {
    handleError(err, 'Generating a key for this browser');
    return undefined;
  }
}

export async function signOut(): Promise<void> {
  try {
    if (session.token) await api.signOut();
  } catch {
    // The token may already be gone; signing out locally is what matters.
  } finally {
    markSignedOut(true);
    session.end();
  }
}

export interface SetupInput {
  token: string;
  name: string;
  /** An OpenSSH public key line; when absent the browser makes and keeps a key. */
  publicKey?: string;
}

/**
 * Creates the first admin from the setup link. With a browser key it signs in
 * at once and returns 'signed-in'; with a pasted key it returns the admin's id
 * so the login page can take over.
 */
export async function completeSetup(input: SetupInput, form: FormErrors): Promise<{ operatorId: string; signedIn: boolean } | undefined> {
  try {
    let key: StoredKey | undefined;
    if (!input.publicKey) {
      await listKeys(); // fails early when this browser cannot keep a key
      key = await generateBrowserKey('admin');
    }
    const admin = await api.setup({ token: input.token, public_key: key?.public_key ?? input.publicKey!.trim(), ...(input.name ? { name: input.name } : {}) });
    if (!key) {
      rememberOperatorId(admin.operator_id);
      return { operatorId: admin.operator_id, signedIn: false };
    }
    const stored = { ...key, id: storeId(admin.operator_id), operator_id: admin.operator_id };
    await saveKey(stored);
    await authenticate(admin.operator_id, (message) => signWith(stored.privateKey, message));
    return { operatorId: admin.operator_id, signedIn: true };
  } catch (err) {
    handleError(err, 'Creating the first admin', form);
    return undefined;
  }
}

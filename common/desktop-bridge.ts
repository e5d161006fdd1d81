// The one object the Electron preload exposes to the renderer as `window.corral`,
// and the IPC channels behind it. The preload (sandboxed, CommonJS) imports only
// the types from here; the main process and the renderer import the values.

/** The desktop app's own admin key, made on first start and kept in the OS key store. */
export interface LocalOperator {
  operator_id: string;
  /** OpenSSH public key line: "ssh-ed25519 AAAA... comment". */
  public_key: string;
}

export interface CorralDesktopBridge {
  /** Always true: lets the UI tell the desktop window from a plain browser. */
  readonly isDesktop: true;
  /**
   * Signs an authentication challenge (`corral-auth-v1:` + nonce) with the local
   * admin key. Resolves to the raw Ed25519 signature in base64, ready for
   * `POST /auth/verify`. Rejects when there is no local key (see localOperator).
   */
  signChallenge(message: string): Promise<string>;
  /**
   * The operator the local key signs in as, or null when this desktop has no
   * local key (the OS key store was unavailable): the UI then uses the setup link
   * or its browser key, exactly as in a remote browser.
   */
  localOperator(): Promise<LocalOperator | null>;
}

/** IPC channel names; the preload spells them out and is type-checked against these. */
export const DESKTOP_CHANNELS = {
  signChallenge: 'corral:sign-challenge',
  localOperator: 'corral:local-operator',
} as const;

/** Longest challenge message the main process will sign (the prefix plus a nonce). */
export const MAX_CHALLENGE_LENGTH = 512;

/** The bridge when running inside the desktop app, undefined in a browser. */
export function desktopBridge(): CorralDesktopBridge | undefined {
  const bridge = (globalThis as { corral?: CorralDesktopBridge }).corral;
  return bridge?.isDesktop === true ? bridge : undefined;
}

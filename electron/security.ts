// What the desktop window may trust and where it may go: only the orchestrator's
// own certificate, only the orchestrator's origin; everything else goes to the
// system browser or nowhere.
import { X509Certificate } from 'node:crypto';
import { shell, type Session, type WebContents } from 'electron';
import { normaliseFingerprint } from '../common/node/pinned-tls.js';

const EXTERNAL_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
/** Permissions the UI may use: copy/paste in terminals, notifications, full screen. */
const ALLOWED_PERMISSIONS = new Set(['clipboard-read', 'clipboard-sanitized-write', 'notifications', 'fullscreen']);

// Chromium verify-proc results: 0 accepts, -2 rejects, -3 uses Chromium's own verdict.
const ACCEPT = 0;
const CHROMIUM_DEFAULT = -3;

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export function isSameOrigin(url: string | undefined, origin: string): boolean {
  return url !== undefined && originOf(url) === origin;
}

function certificateFingerprint(pem: string): string | null {
  try {
    return normaliseFingerprint(new X509Certificate(pem).fingerprint256);
  } catch {
    return null;
  }
}

/**
 * Accepts the orchestrator's self-signed certificate, identified by its SHA-256
 * fingerprint, and nothing else that Chromium would not accept on its own.
 */
export function pinCertificate(session: Session, fingerprint: string): void {
  const pinned = normaliseFingerprint(fingerprint);
  session.setCertificateVerifyProc((request, callback) => {
    callback(certificateFingerprint(request.certificate.data) === pinned ? ACCEPT : CHROMIUM_DEFAULT);
  });
}

/** Grants the few permissions the UI needs, to the orchestrator's origin only. */
export function limitPermissions(session: Session, origin: string): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(ALLOWED_PERMISSIONS.has(permission) && isSameOrigin(details.requestingUrl, origin));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => ALLOWED_PERMISSIONS.has(permission) && requestingOrigin === origin);
}

function openExternally(url: string): void {
  try {
    if (EXTERNAL_PROTOCOLS.has(new URL(url).protocol)) void shell.openExternal(url);
  } catch {
    // not a URL: nothing to open
  }
}

/**
 * Keeps a web contents on the orchestrator's origin: navigation elsewhere is
 * cancelled and http(s)/mailto links open in the system browser; new windows
 * on the same origin get the same locked-down preferences; no <webview>.
 */
export function guardNavigation(contents: WebContents, origin: string, webPreferences: Electron.WebPreferences): void {
  const guard = (event: Electron.Event, url: string) => {
    if (isSameOrigin(url, origin)) return;
    event.preventDefault();
    openExternally(url);
  };
  contents.on('will-navigate', (event) => guard(event, event.url));
  contents.on('will-redirect', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSameOrigin(url, origin)) return { action: 'allow', overrideBrowserWindowOptions: { webPreferences } };
    openExternally(url);
    return { action: 'deny' };
  });
}

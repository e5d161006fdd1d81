// Corral's desktop shell. It only makes the window, starts the orchestrator
// in-process and relays a few OS calls (key store, tray, notifications); every
// feature lives in the orchestrator and the web UI it serves. See docs/desktop.md.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, session, type Tray } from 'electron';
import { startOrchestrator, type OrchestratorConfig, type OrchestratorHandle } from '../orchestrator/index.js';
import { registerDesktopIpc } from './ipc.js';
import { loadOrCreateLocalAdminKey, type LocalAdminKey } from './local-key.js';
import { loadDesktopMasterKey } from './master-key.js';
import { notify } from './notify.js';
import { guardNavigation, limitPermissions, pinCertificate } from './security.js';
import { createTray } from './tray.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The desktop orchestrator prefers the usual port, so the UI's origin (and its storage) stays the same. */
const PREFERRED_PORT = 7390;

const webPreferences: Electron.WebPreferences = {
  preload: path.join(HERE, 'preload.cjs'),
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  webSecurity: true,
  spellcheck: false,
};

let handle: OrchestratorHandle | null = null;
let mainWindow: BrowserWindow | null = null;
let tray: Tray | null = null;
let startUrl = '';
let quitting = false;
let toldAboutTray = false;

// CORRAL_DATA_DIR (the orchestrator's own variable) also moves Chromium's profile,
// so tests and second profiles are fully separate. Must happen before 'ready'.
if (process.env.CORRAL_DATA_DIR) app.setPath('userData', path.resolve(process.env.CORRAL_DATA_DIR));

function iconPath(): string {
  return path.join(app.getAppPath(), 'resources', 'icon.png');
}

function showWindow(): void {
  if (!handle) return;
  if (mainWindow && !mainWindow.isDestroyed()) {
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
    return;
  }
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Corral',
    icon: iconPath(),
    webPreferences,
  });
  mainWindow = win;
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    mainWindow = null;
    if (quitting || toldAboutTray) return;
    toldAboutTray = true;
    notify({ title: 'Corral is still running', body: 'It keeps serving your machines. Open it again from the tray icon or the app launcher; quit from the tray menu.' });
  });
  win.loadURL(startUrl).catch((err: Error) => console.error(`corral: cannot load ${startUrl}: ${err.message}`));
}

/**
 * Loopback and the usual port are only defaults: `bind: 0.0.0.0` in the data directory's
 * corral.yaml opens the desktop orchestrator to agents on the network.
 */
async function startBackend(config: OrchestratorConfig): Promise<OrchestratorHandle> {
  try {
    return await startOrchestrator(config, process.env, { bind: '127.0.0.1', port: PREFERRED_PORT });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    console.warn(`corral: port ${PREFERRED_PORT} is in use; the desktop orchestrator takes a free port instead`);
    return startOrchestrator({ ...config, port: 0 }, process.env, { bind: '127.0.0.1' });
  }
}

async function main(): Promise<void> {
  const dataDir = app.getPath('userData');
  const local = loadOrCreateLocalAdminKey(dataDir);
  const key: LocalAdminKey | null = local.key;
  if (local.key) console.log(`corral: local admin key: ${local.key.publicKeyLine} (${local.key.storage})`);
  else console.warn(`corral: no local admin key: ${local.reason}. The window signs in like a browser (setup link or browser key).`);

  const masterKey = loadDesktopMasterKey(dataDir);
  handle = await startBackend({
    dataDir,
    http: false,
    adminKey: key?.publicKeyLine,
    masterKey,
    banner: true,
    // The `desktop` notification channel: a native notice; clicking it brings the window up.
    desktopNotifier: (notice) => notify({ title: notice.title, body: notice.body, urgent: notice.severity === 'critical' }, showWindow),
  });
  if (!handle.tlsFingerprint) throw new Error('the orchestrator started without TLS; the desktop app needs its certificate');
  const origin = new URL(handle.url).origin;
  // Without a local key, the first admin is made through the one-time setup link.
  startUrl = !key && handle.setupUrl ? handle.setupUrl : `${handle.url}/`;

  pinCertificate(session.defaultSession, handle.tlsFingerprint);
  limitPermissions(session.defaultSession, origin);
  app.on('web-contents-created', (_event, contents) => guardNavigation(contents, origin, webPreferences));
  registerDesktopIpc(origin, key);

  try {
    tray = createTray(iconPath(), { open: showWindow, quit: () => app.quit() });
  } catch (err) {
    console.warn(`corral: no tray icon: ${(err as Error).message}`);
  }
  showWindow();
}

if (!app.requestSingleInstanceLock()) {
  // Another Corral owns this data directory; it shows its window (second-instance below).
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  // Closing the window does not stop the orchestrator: agents and jobs keep running.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (!handle) return;
    const closing = handle;
    handle = null;
    event.preventDefault();
    closing
      .close()
      .catch((err: Error) => console.error(`corral: orchestrator did not close cleanly: ${err.message}`))
      .finally(() => {
        tray?.destroy();
        app.quit();
      });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => app.quit());

  app.whenReady().then(main).catch((err: Error) => {
    console.error(`corral: cannot start: ${err.stack ?? err.message}`);
    dialog.showErrorBox('Corral could not start', `${err.message}\n\nData directory: ${app.getPath('userData')}`);
    app.exit(1);
  });
}

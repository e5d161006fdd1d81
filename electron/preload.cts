// Sandboxed preload (CommonJS: sandboxed preloads cannot be ES modules, and may
// require only 'electron'). Exposes exactly one object, `window.corral`, whose
// type lives in common/desktop-bridge.ts; the channel names are checked against
// DESKTOP_CHANNELS there at compile time.
import electron = require('electron');
import type { CorralDesktopBridge, DESKTOP_CHANNELS, LocalOperator } from '../common/desktop-bridge.js' with { 'resolution-mode': 'import' };

type Channels = typeof DESKTOP_CHANNELS;
const SIGN_CHALLENGE: Channels['signChallenge'] = 'corral:sign-challenge';
const LOCAL_OPERATOR: Channels['localOperator'] = 'corral:local-operator';

const bridge: CorralDesktopBridge = {
  isDesktop: true,
  signChallenge: (message: string) => electron.ipcRenderer.invoke(SIGN_CHALLENGE, message) as Promise<string>,
  localOperator: () => electron.ipcRenderer.invoke(LOCAL_OPERATOR) as Promise<LocalOperator | null>,
};

electron.contextBridge.exposeInMainWorld('corral', bridge);

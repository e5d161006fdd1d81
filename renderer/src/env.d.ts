/// <reference types="svelte" />
/// <reference types="vite/client" />

import type { CorralDesktopBridge } from '../../common/desktop-bridge.js';

declare global {
  /** package.json version, injected by vite.config.ts. */
  const __CORRAL_VERSION__: string;

  interface Window {
    /** Present only inside the Corral desktop app (Electron preload). */
    corral?: CorralDesktopBridge;
  }
}

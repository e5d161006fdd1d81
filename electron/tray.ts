// Tray icon: the orchestrator keeps serving agents while the window is closed,
// so the tray is where the window comes back from and where the app quits.
import { Menu, Tray, nativeImage } from 'electron';

export interface TrayActions {
  open(): void;
  quit(): void;
}

export function createTray(iconPath: string, actions: TrayActions): Tray {
  const size = process.platform === 'linux' ? 24 : 16;
  const tray = new Tray(nativeImage.createFromPath(iconPath).resize({ width: size, height: size }));
  tray.setToolTip('Corral');
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Corral', click: () => actions.open() },
      { type: 'separator' },
      { label: 'Quit Corral', click: () => actions.quit() },
    ]),
  );
  // Windows and some Linux trays open on a plain click; macOS shows the menu.
  tray.on('click', () => actions.open());
  return tray;
}

import { expect, test } from './fixtures.js';
import { AppFrame } from './pages/app-frame.js';
import { LoginPage } from './pages/login-page.js';
import { makeSshKey, sshsign } from './support/ssh.js';

const localAdmin = makeSshKey('corral-desktop');
// The desktop app creates its local admin from its own key, like --admin-key.
test.use({ adminKey: localAdmin });

test('inside the desktop app the preload bridge signs in without a key in the browser', async ({ page, orchestrator }) => {
  // Stands in for electron's preload: the desktop app holds the key and signs (here as SSHSIG via ssh-keygen).
  await page.exposeFunction('corralTestSign', (message: string) => sshsign(localAdmin, message));
  await page.addInitScript(() => {
    const w = window as unknown as { corral: unknown; corralTestSign: (m: string) => Promise<string> };
    w.corral = {
      isDesktop: true,
      localOperator: async () => ({ operator_id: 'admin' }),
      signChallenge: (message: string) => w.corralTestSign(message),
    };
  });
  const frame = new AppFrame(page);
  const login = new LoginPage(page);

  await page.goto(orchestrator.url);
  await frame.expectSignedInAs('admin', 'admin');

  // After signing out it waits to be asked, instead of signing straight back in.
  await frame.signOut();
  await login.expectShown();
  await expect(page.getByTestId('current-operator')).toHaveCount(0);
  await page.getByTestId('login-desktop').click();
  await frame.expectSignedInAs('admin', 'admin');
});

test('a desktop without a local key (no OS key store) signs in like a browser', async ({ page, orchestrator }) => {
  await page.addInitScript(() => {
    (window as unknown as { corral: unknown }).corral = {
      isDesktop: true,
      localOperator: async () => null,
      signChallenge: async () => {
        throw new Error('no local key');
      },
    };
  });
  const login = new LoginPage(page);
  await page.goto(orchestrator.url);
  await login.expectShown();
  await expect(page.getByTestId('login-desktop')).toHaveCount(0);
  await expect(page.getByTestId('current-operator')).toHaveCount(0);
});

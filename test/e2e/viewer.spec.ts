import { expect, test } from './fixtures.js';
import { AppFrame } from './pages/app-frame.js';
import { AuditPage } from './pages/audit-page.js';
import { LoginPage } from './pages/login-page.js';
import { OperatorsPage } from './pages/operators-page.js';
import { ApiHelper } from './support/api.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');
// The first admin comes from --admin-key here, as on a headless server.
test.use({ adminKey });

test('a viewer signs in with a pasted private key and sees no admin controls', async ({ page, orchestrator }) => {
  const viewerKey = makeSshKey('vera@desk');
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);
  await api.createOperator({ operator_id: 'vera', name: 'Vera Viewer', role: 'viewer', public_keys: [viewerKey.publicKey] });
  for (let i = 0; i < 60; i++) await api.challenge('nobody'); // more than one page of audit events

  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const operators = new OperatorsPage(page);
  const audit = new AuditPage(page);

  await test.step('an encrypted key gets a clear message', async () => {
    const locked = makeSshKey('vera@locked', 'correct horse');
    await login.open(orchestrator.url);
    await login.signInWithPrivateKey('vera', locked.privateKey);
    await expect(login.errorNotice).toContainText('protected by a passphrase');
    await expect(login.errorNotice).toContainText('corral login');
    await expect(login.page.getByTestId('login-private-key')).toHaveValue('');
    await login.dismissNotices();
  });

  await test.step('the unencrypted private key signs in and is kept', async () => {
    await login.signInWithPrivateKey('vera', viewerKey.privateKey);
    await frame.expectSignedInAs('vera', 'viewer');
  });

  await test.step('operators are read-only', async () => {
    await frame.go('operators', 'Operators');
    await expect(operators.row('admin')).toBeVisible();
    await expect(operators.row('vera').getByTestId('you-marker')).toBeVisible();
    await expect(page.getByTestId('operators-readonly')).toBeVisible();
    await expect(operators.addButton).toHaveCount(0);
    await expect(operators.removeButtons).toHaveCount(0);
  });

  await test.step('the audit log is readable but prune and retention are not offered', async () => {
    await frame.go('audit', 'Audit log');
    await expect(audit.rows).toHaveCount(50);
    await page.getByTestId('audit-older').click();
    await expect(page.getByText('Page 2 ·')).toBeVisible();
    await expect(audit.row('operator.create', 'vera')).toHaveCount(1);
    await expect(page.getByTestId('audit-older')).toBeDisabled();
    await page.getByTestId('audit-newer').click();
    await expect(page.getByText('Page 1 ·')).toBeVisible();
    await expect(audit.rows).toHaveCount(50);
    await expect(page.getByTestId('retention-readonly')).toContainText('90 days');
    await expect(page.getByTestId('retention-days')).toHaveCount(0);
    await expect(page.getByTestId('audit-prune')).toHaveCount(0);
    await audit.screenshot('audit-viewer');
  });

  await test.step('a viewer manages their own keys', async () => {
    const spare = makeSshKey('vera@spare');
    await frame.go('operators', 'Operators');
    const myKeys = page.getByTestId('my-key');
    await expect(myKeys).toHaveCount(1);
    await expect(myKeys.first()).toContainText('this session');
    await expect(myKeys.first().getByTestId('remove-my-key')).toBeDisabled();
    await page.getByTestId('my-new-key').fill(spare.publicKey);
    await page.getByTestId('my-new-key-submit').click();
    await expect(myKeys).toHaveCount(2);
    await expect(operators.row('vera')).toContainText('vera@spare');
    await myKeys.filter({ hasText: 'vera@spare' }).getByTestId('remove-my-key').click();
    await operators.confirm();
    await expect(myKeys).toHaveCount(1);
    await operators.dismissNotices();
  });

  await test.step('a session revoked elsewhere sends the browser back to sign-in', async () => {
    await frame.go('operators', 'Operators');
    const token = await page.evaluate(() => sessionStorage.getItem('corral.token'));
    expect(token).toBeTruthy();
    await new ApiHelper(orchestrator.url, token!).signOut();
    await page.getByRole('button', { name: 'Refresh operators' }).click();
    await login.expectShown();
    await expect(login.errorNotice).toContainText('Your session has ended');
    await login.dismissNotices();
  });

  await test.step('the key kept in the browser signs in again after signing out', async () => {
    await login.signInWithBrowserKey('vera');
    await frame.expectSignedInAs('vera', 'viewer');
  });
});

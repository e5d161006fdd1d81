import { expect, test } from './fixtures.js';
import { AppFrame } from './pages/app-frame.js';
import { AuditPage } from './pages/audit-page.js';
import { LoginPage } from './pages/login-page.js';
import { OperatorsPage } from './pages/operators-page.js';
import { SetupPage } from './pages/setup-page.js';
import { makeSshKey } from './support/ssh.js';

test('first admin sets up with a browser key, adds an operator and finds it in the audit log', async ({ page, orchestrator }) => {
  const setup = new SetupPage(page);
  const frame = new AppFrame(page);
  const operators = new OperatorsPage(page);
  const audit = new AuditPage(page);
  const login = new LoginPage(page);
  expect(orchestrator.setupUrl).toContain('/#/setup?token=');

  await test.step('setup link creates the first admin and signs in', async () => {
    await setup.open(orchestrator.setupUrl!);
    await setup.screenshot('setup');
    await setup.createAdminWithBrowserKey('Ada Admin');
    await frame.expectSignedInAs('admin', 'admin');
    await expect(frame.title).toHaveText('Fleet');
    await expect(page).not.toHaveURL(/token=/);
    await frame.go('status', 'Status');
    await expect(page.getByTestId('status-api-version')).toHaveText('0.0.13');
    await frame.screenshot('status');
  });

  const alice = makeSshKey('alice@laptop');

  await test.step('a bad key is refused with the field named', async () => {
    await frame.go('operators', 'Operators');
    await expect(operators.row('admin').getByTestId('you-marker')).toBeVisible();
    await operators.fillNewOperator({ id: 'alice', role: 'operator', keys: ['ssh-ed25519 AAAAnot-a-key'] });
    await expect(page.getByTestId('field-error-new-operator-keys')).toContainText('line 1');
    await expect(operators.errorNotice).toContainText('Bad request');
    await expect(operators.row('alice')).toHaveCount(0);
    await operators.screenshot('operators-error', { keepNotices: true });
  });

  await test.step('admin adds an operator', async () => {
    await operators.dismissNotices();
    await operators.addOperator({ id: 'alice', name: 'Alice Liddell', role: 'operator', keys: [alice.publicKey] });
    await expect(operators.row('alice').getByTestId('role-badge')).toHaveText('operator');
    await expect(operators.row('alice')).toContainText('alice@laptop');
    await expect(operators.removeButtons).toHaveCount(1); // alice's; an admin does not remove themself here
    await operators.screenshot('operators');
  });

  await test.step('the audit log shows the operator.create event', async () => {
    await frame.go('audit', 'Audit log');
    const row = audit.row('operator.create', 'alice', 'success');
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('outcome-badge')).toHaveText('success');
    await expect(row).toContainText('admin');
    // The refused attempt with the bad key is audited too.
    await expect(audit.row('operator.create', 'alice', 'error')).toHaveCount(1);
    const detail = await audit.expand('operator.create', 'alice', 'success');
    await expect(detail.getByTestId('audit-detail-json')).toContainText('"role": "operator"');
    const chain = await audit.verifyChain();
    await expect(chain).toHaveAttribute('data-ok', 'true');
    await audit.screenshot('audit');

    await audit.filterByAction('operator.*');
    await expect(audit.rows).toHaveCount(2);
    for (const action of await audit.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')))) expect(action).toMatch(/^operator\./);
    await expect(page.getByTestId('retention-days')).toHaveValue('90');
    await expect(page.getByTestId('audit-prune')).toBeVisible();
  });

  await test.step('admin sets the retention and prunes the log', async () => {
    await page.getByTestId('filter-reset').click();
    await expect(page).toHaveURL(/#\/audit$/);
    await audit.setRetention(30);
    await page.reload();
    await expect(page.getByTestId('retention-days')).toHaveValue('30');
    await audit.prune('2099-01-01T00:00');
    await expect(audit.rows).toHaveCount(1);
    await expect(audit.rows.first()).toHaveAttribute('data-action', 'audit.prune');
    await expect(await audit.verifyChain()).toHaveAttribute('data-ok', 'true');
    await audit.dismissNotices();
  });

  await test.step('every area is built: no "soon" badges left', async () => {
    await expect(page.getByTestId('soon-badge')).toHaveCount(0);
    await frame.go('maintenance', 'Maintenance');
    await expect(page.getByTestId('placeholder-badge')).toHaveCount(0);
  });

  await test.step('the dark theme is remembered, and a reload keeps the session', async () => {
    await frame.go('operators', 'Operators');
    await frame.toggleTheme();
    expect(await frame.theme()).toBe('dark');
    await page.reload();
    await frame.expectSignedInAs('admin', 'admin');
    expect(await frame.theme()).toBe('dark');
    await expect(operators.row('alice')).toBeVisible();
    await frame.screenshot('operators-dark');
    await frame.toggleTheme();
    expect(await frame.theme()).toBe('light');
  });

  await test.step('sign out, then back in with the key this browser keeps', async () => {
    await frame.signOut();
    await login.expectShown();
    await expect(login.operatorId).toHaveValue('admin');
    await expect(login.keyState).toContainText('This browser keeps a key');
    await login.screenshot('login');
    await login.signInWithBrowserKey('admin');
    await frame.expectSignedInAs('admin', 'admin');
  });

  await test.step('a key generated on the sign-in page works once an admin adds it', async () => {
    await frame.signOut();
    const bobLine = await login.generateKey('bob');
    expect(bobLine).toMatch(/^ssh-ed25519 AAAA\S+ bob@corral-browser$/);
    await login.screenshot('login-generated-key');
    await login.signInWithBrowserKey('admin');
    await frame.go('operators', 'Operators');
    await operators.addOperator({ id: 'bob', role: 'viewer', keys: [bobLine] });
    await frame.signOut();
    await login.signInWithBrowserKey('bob');
    await frame.expectSignedInAs('bob', 'viewer');
  });
});

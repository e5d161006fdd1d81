import { expect, test } from './fixtures.js';
import { AppFrame } from './pages/app-frame.js';
import { LoginPage } from './pages/login-page.js';
import { ModulesPage } from './pages/modules-page.js';
import { SecretsPage } from './pages/secrets-page.js';
import { ApiHelper } from './support/api.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');
test.use({ adminKey });

/** A module using a secret; line 13 holds a misspelt property ("contnet"). */
const BROKEN = `name: app-config
description: Configuration of the app, with its database password
vars:
  port: 8080
resources:
  - id: config-dir
    type: directory
    path: /etc/app
    mode: "0755"
  - id: config
    type: file
    path: /etc/app/app.conf
    contnet: "x"
    template: |
      port = {{ vars.port }}
      password = {{ secrets.db_password }}
    requires: [config-dir]`;

const FIXED = BROKEN.replace('    contnet: "x"\n', '    mode: "0600"\n');
const REVISED = FIXED.replace('port: 8080', 'port: 9090').replace('    mode: "0755"\n', '    mode: "0750"\n');

test('secrets and modules: write with live validation, upload, revise, diff; viewers only read', async ({ page, orchestrator }) => {
  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const modules = new ModulesPage(page);
  const secrets = new SecretsPage(page);
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);

  await test.step('sign in and create a secret; its value never comes back', async () => {
    await login.open(orchestrator.url);
    await login.signInWithPrivateKey('admin', adminKey.privateKey);
    await frame.expectSignedInAs('admin', 'admin');
    await frame.go('secrets', 'Secrets');
    await secrets.create('db_password', 'hunter2-very-secret', 'Database password of the app');
    await expect(secrets.row('db_password')).toContainText('v1');
    await expect(secrets.row('db_password')).toContainText('Database password of the app');
    await expect(page.getByTestId('secret-create-form')).toHaveCount(0);
    await expect(page.getByText('hunter2-very-secret')).toHaveCount(0);
    await secrets.dismissNotices();
  });

  await test.step('a new value is write-only: the field starts empty, and saving raises the version', async () => {
    await page.getByTestId('secret-edit-db_password').click();
    await expect(page.getByTestId('edit-secret-value')).toHaveValue('');
    await expect(page.getByTestId('edit-secret-value')).toHaveAttribute('type', 'password');
    await page.getByTestId('edit-secret-value').fill('hunter3-even-more-secret');
    await page.getByTestId('edit-secret-value-toggle').click();
    await expect(page.getByTestId('edit-secret-value')).toHaveAttribute('type', 'text');
    await page.getByTestId('edit-secret-submit').click();
    await expect(secrets.row('db_password')).toContainText('v2');
    await expect(page.getByTestId('secret-edit-form')).toHaveCount(0);
    await expect(page.getByText('hunter3-even-more-secret')).toHaveCount(0);
    await secrets.dismissNotices();
  });

  await test.step('a new module starts from an example; an error shows at its line, inline and in the list', async () => {
    await frame.go('modules', 'Modules');
    await modules.newButton.click();
    await expect(modules.title).toHaveText('New module');
    await expect(modules.editor).toHaveAttribute('data-ready', 'true');
    expect(await modules.text()).toContain('name: motd');
    await expect(modules.status).toContainText('Valid');
    await modules.setText(BROKEN);
    await expect(modules.errors).toHaveCount(1);
    await expect(modules.errors.first()).toHaveAttribute('data-line', '13');
    await expect(modules.errors.first()).toContainText('config');
    await expect(modules.errors.first()).toContainText('did you mean "content"');
    await expect(modules.line(13).locator('.cm-lintRange-error')).toHaveText('contnet: "x"');
    await expect(modules.editor.locator('.cm-lint-marker-error')).toHaveCount(1);
    await expect(modules.uploadButton).toBeDisabled();
    await modules.screenshot('module-editor');
  });

  await test.step('fixed, it uploads as revision 1 and is listed with the secret it uses', async () => {
    await modules.setText(FIXED);
    await expect(modules.errors).toHaveCount(0);
    await expect(modules.status).toContainText('Valid');
    await modules.uploadButton.click();
    await expect(modules.successNotice).toContainText('Module app-config created');
    await expect(modules.title).toHaveText('app-config');
    await expect(page).toHaveURL(/#\/modules\?module=app-config$/);
    await expect(page.getByTestId('module-current-revision')).toHaveText('revision 1');
    await expect(page.getByTestId('module-facts')).toContainText('db_password');
    await expect(modules.uploadButton).toBeDisabled(); // nothing changed since
    await modules.dismissNotices();
    await page.getByTestId('modules-back').click();
    await expect(modules.row('app-config')).toContainText('r1');
    await expect(modules.row('app-config')).toContainText('db_password');
    await expect(modules.row('app-config')).toContainText('2'); // resources
  });

  await test.step('a server refusal lands on its line too (the secret went away after the editor checked)', async () => {
    await modules.open('app-config');
    await api.createSecret({ name: 'temp_token', value: 'short-lived' });
    await page.reload();
    await expect(modules.editor).toHaveAttribute('data-ready', 'true');
    await modules.setText(REVISED.replace('{{ secrets.db_password }}', '{{ secrets.temp_token }}'));
    await expect(modules.status).toContainText('Valid');
    await api.deleteSecret('temp_token');
    await modules.uploadButton.click();
    await expect(modules.errorNotice).toBeVisible();
    await expect(modules.errors).toHaveCount(1);
    await expect(modules.errors.first()).toHaveAttribute('data-line', '16');
    await expect(modules.errors.first()).toContainText('unknown secret "temp_token"');
    await expect(modules.line(16).locator('.cm-lintRange-error')).toBeVisible();
    await modules.dismissNotices();
  });

  await test.step('a second revision, and the diff between revisions', async () => {
    await modules.setText(REVISED);
    await expect(modules.errors).toHaveCount(0);
    await modules.uploadButton.click();
    await expect(modules.successNotice).toContainText('Module app-config revised');
    await expect(page.getByTestId('module-current-revision')).toHaveText('revision 2');
    await expect(page.getByTestId('module-revision-1')).toBeVisible();
    await expect(page.getByTestId('module-revision-2')).toBeVisible();
    const diff = page.getByTestId('module-diff');
    await expect(diff.getByTestId('diff-from')).toHaveValue('1');
    await expect(diff.getByTestId('diff-to')).toHaveValue('2');
    await expect(diff.getByTestId('diff-add')).toHaveCount(2);
    await expect(diff.getByTestId('diff-del')).toHaveCount(2);
    await expect(diff.getByTestId('diff-add').first()).toContainText('port: 9090');
    await expect(diff.getByTestId('diff-del').first()).toContainText('port: 8080');
    await modules.screenshot('module-diff');
    await frame.toggleTheme();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await modules.screenshot('module-diff-dark');
    await frame.toggleTheme();
    await diff.getByTestId('diff-from').selectOption('2');
    await expect(diff).toContainText('have the same text');
    await diff.getByTestId('diff-from').selectOption('1');
    await page.getByTestId('modules-back').click();
    await expect(modules.row('app-config')).toContainText('r2');
    await modules.screenshot('modules');
  });

  await test.step('a secret in use cannot be deleted; the refusal names the module', async () => {
    await frame.go('secrets', 'Secrets');
    await expect(secrets.row('db_password')).toContainText('app-config');
    await page.getByTestId('secret-delete-db_password').click();
    await secrets.confirm();
    await expect(secrets.errorNotice).toContainText('app-config');
    await expect(secrets.row('db_password')).toBeVisible();
    await secrets.dismissNotices();
    await secrets.screenshot('secrets');
  });

  await test.step('a viewer reads modules and secrets without any editing control', async () => {
    const viewerKey = makeSshKey('vera@desk');
    await api.createOperator({ operator_id: 'vera', name: 'Vera Viewer', role: 'viewer', public_keys: [viewerKey.publicKey] });
    await frame.signOut();
    await login.expectShown();
    await login.signInWithPrivateKey('vera', viewerKey.privateKey);
    await frame.expectSignedInAs('vera', 'viewer');
    await frame.go('modules', 'Modules');
    await expect(page.getByTestId('modules-readonly')).toBeVisible();
    await expect(modules.newButton).toHaveCount(0);
    await modules.open('app-config');
    await expect(modules.uploadButton).toHaveCount(0);
    await expect(modules.deleteButton).toHaveCount(0);
    await expect(modules.editor.locator('.cm-content')).toHaveAttribute('contenteditable', 'false');
    await expect(page.getByTestId('module-diff')).toBeVisible();
    await frame.go('secrets', 'Secrets');
    await expect(page.getByTestId('secrets-readonly')).toBeVisible();
    await expect(secrets.row('db_password')).toBeVisible();
    await expect(secrets.newButton).toHaveCount(0);
    await expect(page.getByTestId('secret-edit-db_password')).toHaveCount(0);
    await expect(page.getByTestId('secret-delete-db_password')).toHaveCount(0);
  });

  await test.step('deleting the module, then its secret', async () => {
    await frame.signOut();
    await login.signInWithPrivateKey('admin', adminKey.privateKey);
    await frame.expectSignedInAs('admin', 'admin');
    await frame.dismissNotices();
    await frame.go('modules', 'Modules');
    await modules.open('app-config');
    await modules.deleteButton.click();
    await modules.confirm();
    await expect(modules.successNotice).toContainText('Module app-config deleted');
    await expect(modules.title).toHaveText('Modules');
    await expect(modules.row('app-config')).toHaveCount(0);
    await modules.dismissNotices();
    await frame.go('secrets', 'Secrets');
    await expect(secrets.row('db_password')).not.toContainText('app-config');
    await page.getByTestId('secret-delete-db_password').click();
    await secrets.confirm();
    await expect(secrets.successNotice).toContainText('Secret db_password deleted');
    await expect(secrets.row('db_password')).toHaveCount(0);
  });
});

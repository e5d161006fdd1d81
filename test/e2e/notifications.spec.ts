import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startHttpReceiver, type HttpReceiver } from '../helpers/http-receiver.js';
import { expect, test as base } from './fixtures.js';
import { ChannelsPage, MaintenancePage, NotificationBell, NotificationsPage } from './pages/alerts-pages.js';
import { AgentPage } from './pages/agent-page.js';
import { AppFrame } from './pages/app-frame.js';
import { FleetPage } from './pages/fleet-page.js';
import { LoginPage } from './pages/login-page.js';
import { startAgent, type RunningAgent } from './support/agent.js';
import { ApiHelper } from './support/api.js';
import { SCREENSHOT_DIR } from './support/paths.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');

// A real HTTP server per test for webhooks to reach, and a real agent where a window needs one.
const test = base.extend<{ receiver: HttpReceiver; agent: RunningAgent }>({
  // eslint-disable-next-line no-empty-pattern
  receiver: async ({}, use) => {
    const receiver = await startHttpReceiver();
    await use(receiver);
    await receiver.close();
  },
  agent: async ({ orchestrator }, use) => {
    const agent = await startAgent({ orchestratorUrl: orchestrator.url, nodeId: 'db-01', metricsIntervalS: 5 });
    await use(agent);
    await agent.stop();
  },
});
test.use({ adminKey });

async function signInAsAdmin(page: Page, orchestratorUrl: string): Promise<AppFrame> {
  const frame = new AppFrame(page);
  const login = new LoginPage(page);
  await login.open(orchestratorUrl);
  await login.signInWithPrivateKey('admin', adminKey.privateKey);
  await frame.expectSignedInAs('admin', 'admin');
  await frame.dismissNotices();
  return frame;
}

/** Screenshots go to test-results/screenshots; SHOTS_DIR=/somewhere copies them there too. */
async function shot(frame: AppFrame, name: string): Promise<void> {
  await frame.screenshot(name);
  const extra = process.env.SHOTS_DIR;
  if (extra) {
    mkdirSync(extra, { recursive: true });
    copyFileSync(path.join(SCREENSHOT_DIR, `${name}.png`), path.join(extra, `${name}.png`));
  }
}

test('a webhook channel is created, tested against a real receiver, and its delivery is listed', async ({ page, orchestrator, receiver }) => {
  const frame = await signInAsAdmin(page, orchestrator.url);
  const channels = new ChannelsPage(page);

  await test.step('the empty list says what channels are for', async () => {
    await frame.go('channels', 'Channels');
    await expect(page.getByText('No channels yet')).toBeVisible();
    await shot(frame, 'channels-empty');
  });

  await test.step('a field the server refuses is named beside its input', async () => {
    await page.getByTestId('channel-new').click();
    await page.getByTestId('channel-name').fill('phone');
    await page.getByTestId('channel-type').selectOption('ntfy');
    await channels.config('topic').fill('not a topic!');
    await page.getByTestId('channel-submit').click();
    await expect(page.getByTestId('field-error-channel-config-topic')).toBeVisible();
    await expect(channels.config('topic')).toHaveAttribute('aria-invalid', 'true');
    await frame.dismissNotices();
    await page.getByTestId('channels-back').click();
  });

  await test.step('create a webhook pointed at the receiver', async () => {
    await page.getByTestId('channel-new').click();
    await page.getByTestId('channel-name').fill('ops-hook');
    await channels.config('url').fill(`${receiver.url}/hook`);
    await channels.config('secret').fill('a-signing-key-of-enough-length');
    await page.getByTestId('channel-event-agent.offline').check();
    await page.getByTestId('channel-event-apply.failed').check();
    await page.getByTestId('channel-template-on').check();
    await shot(frame, 'channel-form');
    await page.getByTestId('channel-template-on').uncheck();
    await page.getByTestId('channel-submit').click();
    await expect(channels.title).toHaveText('ops-hook');
    await expect(page.getByTestId('channel-type-badge')).toHaveText('webhook');
  });

  await test.step('Test sends one POST at once and shows what the receiver answered', async () => {
    await channels.testButton.click();
    await expect(channels.outcome).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('test-outcome-headline')).toHaveText('Test delivered');
    await expect(page.getByTestId('test-outcome-detail')).toContainText('200');
    const [request] = await receiver.waitFor(1);
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hook');
    expect(request!.json).toBeTruthy();
    expect(request!.headers['x-corral-signature']).toBeTruthy();
    await expect(page.getByTestId('channel-config-value-secret')).toHaveText('set');
    await expect(channels.deliveries.first()).toHaveAttribute('data-kind', 'test');
    await expect(channels.deliveries.first()).toHaveAttribute('data-status', 'delivered');
    await shot(frame, 'channel-tested');
  });

  await test.step('a failing receiver is shown as a failed test', async () => {
    receiver.respondWith(500, 'boom');
    await channels.testButton.click();
    await expect(channels.outcome).toHaveAttribute('data-ok', 'false');
    await expect(page.getByTestId('test-outcome-headline')).toHaveText('Test failed');
    await expect(page.getByTestId('test-outcome-detail')).toContainText('500');
    await expect(channels.deliveries).toHaveCount(2);
    await shot(frame, 'channel-test-failed');
  });

  await test.step('the list shows its filters and delivery health, in both themes', async () => {
    await page.getByTestId('channels-back').click();
    await expect(channels.row('ops-hook')).toContainText('webhook');
    await expect(channels.row('ops-hook').getByTestId('channel-filters')).toContainText('Agent offline');
    await expect(channels.row('ops-hook').getByTestId('delivery-health')).toContainText('Error');
    await shot(frame, 'channels');
    await frame.toggleTheme();
    await shot(frame, 'channels-dark');
    await channels.row('ops-hook').getByTestId('channel-link-ops-hook').click();
    await page.getByTestId('channel-edit').click();
    await expect(page.getByTestId('channel-form')).toBeVisible();
    // A stored credential is never shown: its field starts empty and says it is kept.
    await expect(channels.config('secret')).toHaveValue('');
    await expect(page.locator('#channel-config-secret-hint')).toHaveText('set — leave empty to keep');
    await shot(frame, 'channel-edit-dark');
    await frame.toggleTheme();
  });
});

test('a maintenance window marks its agents, is seen active, and ends early', async ({ page, orchestrator, agent }) => {
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);
  await api.approveAndWaitOnline(agent.nodeId);
  await api.setTag(agent.nodeId, 'role', 'db');

  const frame = await signInAsAdmin(page, orchestrator.url);
  const maintenance = new MaintenancePage(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);

  await test.step('the empty page, then a form with a live preview of the matching agents', async () => {
    await frame.go('maintenance', 'Maintenance');
    await expect(page.getByText('No maintenance windows yet')).toBeVisible();
    await maintenance.create({ name: 'db-upgrade', selector: 'role=db', duration: '4h', reason: 'PostgreSQL 17 upgrade' });
    await expect(page.getByTestId('selector-preview-count')).toHaveAttribute('data-count', '1');
    await expect(page.getByTestId('selector-preview')).toContainText(agent.nodeId);
    await expect(page.getByTestId('window-span')).toContainText('From now');
    await shot(frame, 'maintenance-form');
    await maintenance.submit();
    await expect(maintenance.status('db-upgrade')).toHaveText('active');
    await expect(maintenance.row('db-upgrade').getByTestId('window-matching')).toHaveText('1');
    await shot(frame, 'maintenance-active');
  });

  await test.step('the fleet and the agent page show the wrench badge', async () => {
    await frame.go('fleet', 'Fleet');
    await expect(page.getByTestId(`maintenance-${agent.nodeId}`)).toContainText('maintenance until');
    await expect(page.getByTestId(`maintenance-${agent.nodeId}`)).toHaveAttribute('title', /db-upgrade/);
    await shot(frame, 'fleet-maintenance');
    await fleet.openAgent(agent.nodeId);
    await expect(page.getByTestId('agent-maintenance')).toBeVisible();
    await agentPage.dismissNotices();
  });

  await test.step('End now asks first, then the window is ended and the badge goes', async () => {
    await frame.go('maintenance', 'Maintenance');
    await maintenance.endNow('db-upgrade');
    await expect(maintenance.status('db-upgrade')).toHaveText('ended');
    await expect(page.getByTestId('window-end-db-upgrade')).toHaveCount(0);
    await shot(frame, 'maintenance-ended');
    await frame.toggleTheme();
    await shot(frame, 'maintenance-ended-dark');
    await frame.toggleTheme();
    await frame.go('fleet', 'Fleet');
    await expect(fleet.row(agent.nodeId)).toBeVisible();
    await expect(page.getByTestId(`maintenance-${agent.nodeId}`)).toHaveCount(0);
  });
});

test('the bell counts new notifications live and Mark all read clears it', async ({ page, orchestrator }) => {
  const frame = await signInAsAdmin(page, orchestrator.url);
  const bell = new NotificationBell(page);
  const inbox = new NotificationsPage(page);
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);

  await test.step('start from a read inbox', async () => {
    await bell.open();
    await expect(page.getByTestId('live-status')).toHaveText('Live');
    if ((await bell.unread()) > 0) await bell.markAllRead();
    await expect(bell.count).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(bell.panel).toHaveCount(0);
  });

  await test.step('adding an operator elsewhere raises the count without a reload', async () => {
    await api.createOperator({ operator_id: 'olga', name: 'Olga Operator', role: 'operator', public_keys: [makeSshKey('olga@desk').publicKey] });
    await expect(bell.count).toHaveText('1');
    await api.createOperator({ operator_id: 'vic', name: 'Vic Viewer', role: 'viewer', public_keys: [makeSshKey('vic@desk').publicKey] });
    await expect(bell.count).toHaveText('2');
  });

  await test.step('the panel lists them newest first, with an unread dot', async () => {
    await bell.open();
    // The first admin's own operator.added may be there too, already read.
    const items = bell.panel.locator('[data-kind="operator.added"][data-read="false"]');
    await expect(items).toHaveCount(2);
    await expect(items.first()).toContainText('vic');
    await expect(items.first().getByTestId('unread-dot')).toBeVisible();
    await shot(frame, 'bell-panel');
    await frame.toggleTheme();
    await shot(frame, 'bell-panel-dark');
    await frame.toggleTheme();
  });

  await test.step('Mark all read brings the count to zero', async () => {
    await bell.markAllRead();
    await expect(bell.count).toHaveCount(0);
    await expect(page.getByTestId('bell-unread')).toHaveText('0 unread');
  });

  await test.step('clicking one marks it read and opens where it happened', async () => {
    await api.createOperator({ operator_id: 'wes', name: 'Wes', role: 'viewer', public_keys: [makeSshKey('wes@desk').publicKey] });
    await expect(bell.count).toHaveText('1');
    await bell.open();
    await bell.panel.locator('[data-kind="operator.added"]').first().getByTestId('notification-link').click();
    await expect(frame.title).toHaveText('Operators');
    await expect(bell.count).toHaveCount(0);
  });

  await test.step('the inbox page filters and marks read', async () => {
    await page.getByTestId('bell').click();
    await page.getByTestId('bell-see-all').click();
    await expect(frame.title).toHaveText('Notifications');
    await expect(inbox.items.first()).toContainText('wes');
    const before = await inbox.item('operator.added').count();
    await api.createOperator({ operator_id: 'xan', name: 'Xan', role: 'viewer', public_keys: [makeSshKey('xan@desk').publicKey] });
    // New notifications arrive on the open page without a reload.
    await expect(inbox.item('operator.added')).toHaveCount(before + 1);
    await expect(inbox.items.first()).toContainText('xan');
    await page.getByTestId('filter-unread').check();
    await expect(page).toHaveURL(/unread=1/);
    await expect(inbox.items).toHaveCount(1);
    await shot(frame, 'notifications');
    await inbox.items.first().getByTestId('notification-mark-read').click();
    await expect(bell.count).toHaveCount(0);
    await page.getByTestId('filter-severity').selectOption('critical');
    await page.getByTestId('filter-unread').uncheck();
    await expect(page.getByText('No notifications match')).toBeVisible();
    await page.getByTestId('filter-reset').click();
    await expect(inbox.item('operator.added')).toHaveCount(before + 1);
    await frame.toggleTheme();
    await shot(frame, 'notifications-dark');
    await frame.toggleTheme();
  });
});

import { expect, test as base } from './fixtures.js';
import { AgentPage } from './pages/agent-page.js';
import { AppFrame } from './pages/app-frame.js';
import { FleetPage } from './pages/fleet-page.js';
import { LoginPage } from './pages/login-page.js';
import { TagsPage } from './pages/tags-page.js';
import { startAgent, type RunningAgent } from './support/agent.js';
import { ApiHelper } from './support/api.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');

// A real corral-agent process per test, linked to that test's orchestrator and stopped after it.
const test = base.extend<{ agent: RunningAgent }>({
  agent: async ({ orchestrator }, use) => {
    const agent = await startAgent({ orchestratorUrl: orchestrator.url, nodeId: 'web-01' });
    await use(agent);
    await agent.stop();
  },
});
test.use({ adminKey });

test('a new agent is approved, tagged and charted from the web UI', async ({ page, orchestrator, agent }) => {
  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);
  const tags = new TagsPage(page);

  await test.step('signing in lands on the fleet, where the agent waits as pending with its key fingerprint', async () => {
    await login.open(orchestrator.url);
    await login.signInWithPrivateKey('admin', adminKey.privateKey);
    await frame.expectSignedInAs('admin', 'admin');
    await expect(frame.title).toHaveText('Fleet');
    await expect(page).toHaveURL(/#\/fleet$/);
    // The list refreshes on its own: no reload needed for the agent to show up.
    await expect(fleet.row(agent.nodeId)).toHaveAttribute('data-status', 'pending');
    await expect(fleet.fingerprint(agent.nodeId)).toHaveText(agent.keyFingerprint);
    expect(agent.keyFingerprint).toMatch(/^SHA256:/);
    await expect(fleet.statusCount('pending')).toHaveText('1');
    await expect(frame.nav('fleet').getByTestId('soon-badge')).toHaveCount(0);
    await fleet.screenshot('fleet-pending');
  });

  await test.step('a bad selector is explained inline with its position', async () => {
    await fleet.selector.fill('role=web,(');
    await expect(fleet.selectorError).toContainText('position 9');
    await expect(fleet.selector).toHaveAttribute('aria-invalid', 'true');
    await fleet.selector.fill('!role');
    await fleet.selector.press('Enter');
    await expect(page).toHaveURL(/selector=!role/);
    await expect(fleet.selectorError).toHaveCount(0);
    await expect(fleet.row(agent.nodeId)).toBeVisible();
    await fleet.filter('role=web');
    await expect(fleet.row(agent.nodeId)).toHaveCount(0);
    await expect(page.getByText('No agents match')).toBeVisible();
    await page.getByTestId('selector-clear').click();
    await expect(page).toHaveURL(/#\/fleet$/);
  });

  await test.step('the operator approves it; it becomes accepted and online', async () => {
    await fleet.approve(agent.nodeId);
    await expect(fleet.successNotice.filter({ hasText: `${agent.nodeId} approved` })).toHaveCount(1);
    await expect(fleet.row(agent.nodeId)).toHaveAttribute('data-status', 'accepted');
    await expect(fleet.row(agent.nodeId)).toHaveAttribute('data-online', 'true', { timeout: 20_000 });
    await expect(fleet.fingerprint(agent.nodeId)).toHaveCount(0);
    await expect(fleet.statusCount('accepted')).toHaveText('1');
    await expect(fleet.statusCount('pending')).toHaveText('0');
    // Metrics arrive every second once accepted; the row shows them at a glance.
    await expect(page.getByTestId(`cpu-${agent.nodeId}`)).toContainText('%', { timeout: 20_000 });
  });

  await test.step('discovery probes the network and lists what answered', async () => {
    await page.getByTestId('discover-open').click();
    await page.getByTestId('discover-targets').fill('127.0.0.300');
    await page.getByTestId('discover-run').click();
    await expect(page.getByTestId('field-error-discover-targets')).toContainText('not an IPv4 address: 127.0.0.300');
    await page.getByTestId('discover-targets').fill('127.0.0.1');
    await page.getByTestId('discover-run').click();
    // This agent runs without a discovery listener, so what answers depends on the machine; the probe itself must work.
    await expect(page.getByTestId('discover-result')).toContainText(/Probed \d+ address/, { timeout: 15_000 });
    await expect(page.getByTestId('discover-result')).toContainText('127.0.0.1');
    await fleet.screenshot('fleet-discover');
    await page.getByTestId('discover-open').click();
    await expect(page.getByTestId('discover-panel')).toHaveCount(0);
  });

  await test.step('its page shows the attributes the agent read from this machine', async () => {
    await fleet.openAgent(agent.nodeId);
    await expect(agentPage.approval).toHaveText('accepted');
    await expect(agentPage.online).toHaveAttribute('data-online', 'true');
    await expect(page.getByTestId('agent-fingerprint')).toHaveText(agent.keyFingerprint);
    await expect(page.getByTestId('attr-kernel')).not.toHaveText('—', { timeout: 20_000 });
    await expect(page.getByTestId('attr-disks')).toBeVisible();
    await agentPage.screenshot('agent-overview');
  });

  await test.step('tags are added, edited, replaced and removed; a bad key is refused inline', async () => {
    await agentPage.tab('tags');
    await agentPage.addTag('role', 'web');
    await agentPage.addTag('env', 'prod');
    await agentPage.editTag('env', 'staging');
    await agentPage.replaceTags(['env=staging', 'role=web', 'team=infra']);
    await expect(agentPage.tagValue('team')).toHaveText('infra');
    await agentPage.removeTag('role');
    await expect(agentPage.tagValue('env')).toHaveText('staging');
    // Keys are checked as they are typed, per field, and nothing is sent while one is wrong.
    await agentPage.newKey.fill('Bad Key');
    await expect(agentPage.newKeyError).toContainText('must start with a lower-case letter or digit');
    await page.getByTestId('new-tag-add').click();
    await expect(agentPage.tagRow('Bad Key')).toHaveCount(0);
    await agentPage.newKey.fill('web server');
    await expect(agentPage.newKeyError).toContainText('" " is not allowed');
    // The replace-all textarea checks every line before anything is sent.
    await page.getByTestId('tags-replace-open').click();
    await page.getByTestId('tags-replace-text').fill('env=staging\nUPPER=1');
    await expect(page.getByTestId('tags-replace-errors')).toContainText('line 2');
    await expect(page.getByTestId('tags-replace-submit')).toBeDisabled();
    await agentPage.screenshot('agent-tags');
    await page.getByTestId('tags-replace-cancel').click();
    await agentPage.newKey.fill('');
  });

  await test.step('the metrics tab draws the CPU chart with a current value', async () => {
    await agentPage.tab('metrics');
    const canvas = agentPage.chart('cpu').locator('canvas').first();
    await expect(canvas).toBeVisible({ timeout: 30_000 });
    const box = await canvas.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(100);
    expect(box?.height ?? 0).toBeGreaterThan(50);
    await expect(agentPage.lastValue('cpu')).toHaveText(/^\d+(\.\d+)? %$/);
    await expect(agentPage.chart('cpu').locator('.u-legend .u-value').nth(1)).toHaveText(/\d/);
    await expect(agentPage.chart('memory').locator('canvas')).toHaveCount(1);
    await expect(agentPage.lastValue('memory')).toHaveText(/\d.*B of \d/);
    // Let a few more samples arrive so the lines have some length.
    await expect.poll(async () => Number(/(\d+) point/.exec((await page.getByTestId('metrics-meta').textContent()) ?? '')?.[1] ?? 0), { timeout: 30_000 }).toBeGreaterThan(2);
    await agentPage.screenshot('agent-metrics');
  });

  await test.step('the tags page lists the key and links to the filtered fleet', async () => {
    await frame.go('tags', 'Tags');
    await expect(tags.key('env')).toContainText('1 agent');
    await expect(tags.key('team')).toBeVisible();
    await expect(tags.key('role')).toHaveCount(0);
    await tags.screenshot('tags');
    await tags.value('env', 'staging').click();
    await expect(frame.title).toHaveText('Fleet');
    await expect(fleet.selector).toHaveValue('env=staging');
    await expect(fleet.row(agent.nodeId)).toBeVisible();
    await expect(fleet.row(agent.nodeId).getByTestId('tag-chip').first()).toContainText('env=staging');
  });

  await test.step('the fleet in both themes', async () => {
    await page.getByTestId('selector-clear').click();
    await expect(fleet.row(agent.nodeId)).toBeVisible();
    await fleet.screenshot('fleet');
    await frame.toggleTheme();
    expect(await frame.theme()).toBe('dark');
    await fleet.screenshot('fleet-dark');
    await frame.toggleTheme();
    await fleet.openAgent(agent.nodeId);
    await agentPage.tab('metrics');
    await expect(agentPage.chart('cpu').locator('canvas').first()).toBeVisible();
    // Switching the theme with the charts open redraws them in the new colours.
    await frame.toggleTheme();
    expect(await frame.theme()).toBe('dark');
    await expect(agentPage.chart('cpu').locator('canvas')).toHaveCount(1);
    await expect(agentPage.chart('cpu').locator('.u-legend .u-value').nth(1)).toHaveText(/\d/);
    await agentPage.screenshot('agent-metrics-dark');
    await frame.toggleTheme();
  });

  await test.step('revoking, then deleting the record', async () => {
    await page.getByTestId('agent-reject').click();
    await agentPage.confirm();
    await expect(agentPage.approval).toHaveText('rejected');
    await page.getByTestId('agent-delete').click();
    await agentPage.confirm();
    await expect(frame.title).toHaveText('Fleet');
    await expect(fleet.successNotice.filter({ hasText: `${agent.nodeId} deleted` })).toHaveCount(1);
  });
});

test('a viewer sees the fleet but cannot approve, tag or discover', async ({ page, orchestrator, agent }) => {
  const viewerKey = makeSshKey('vera@desk');
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);
  await api.createOperator({ operator_id: 'vera', name: 'Vera Viewer', role: 'viewer', public_keys: [viewerKey.publicKey] });

  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);

  await login.open(orchestrator.url);
  await login.signInWithPrivateKey('vera', viewerKey.privateKey);
  await frame.expectSignedInAs('vera', 'viewer');
  await expect(fleet.row(agent.nodeId)).toHaveAttribute('data-status', 'pending');
  await expect(fleet.fingerprint(agent.nodeId)).toHaveText(agent.keyFingerprint);
  await expect(page.getByTestId(`select-${agent.nodeId}`)).toHaveCount(0);
  await expect(page.getByTestId(`approve-${agent.nodeId}`)).toHaveCount(0);
  await expect(page.getByTestId('discover-open')).toHaveCount(0);

  await fleet.openAgent(agent.nodeId);
  await expect(agentPage.approval).toHaveText('pending');
  await expect(page.getByTestId('agent-fingerprint')).toHaveText(agent.keyFingerprint);
  await expect(page.getByTestId('attributes-empty')).toContainText('once it is accepted');
  await agentPage.screenshot('agent-pending-viewer');
  await expect(page.getByTestId('agent-accept')).toHaveCount(0);
  await expect(page.getByTestId('agent-reject')).toHaveCount(0);
  await agentPage.tab('tags');
  await expect(page.getByTestId('tag-add-form')).toHaveCount(0);
  await expect(page.getByTestId('tags-replace-open')).toHaveCount(0);
});

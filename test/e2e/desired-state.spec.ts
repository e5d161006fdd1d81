import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Page } from '@playwright/test';
import path from 'node:path';
import { expect, test as base } from './fixtures.js';
import { AgentPage } from './pages/agent-page.js';
import { AppFrame } from './pages/app-frame.js';
import { FleetPage } from './pages/fleet-page.js';
import { LoginPage } from './pages/login-page.js';
import { ModulesPage } from './pages/modules-page.js';
import { AssignmentsPage } from './pages/assignments-page.js';
import { OperationsPage } from './pages/operations-page.js';
import { startAgent, type RunningAgent } from './support/agent.js';
import { ApiHelper } from './support/api.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');

// A real corral-agent process per test, and a directory the test owns for the file it manages.
const test = base.extend<{ agent: RunningAgent; workDir: string }>({
  agent: async ({ orchestrator }, use) => {
    const agent = await startAgent({ orchestratorUrl: orchestrator.url, nodeId: 'web-01', metricsIntervalS: 5 });
    await use(agent);
    await agent.stop();
  },
  // eslint-disable-next-line no-empty-pattern
  workDir: async ({}, use) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-e2e-state-'));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
});
test.use({ adminKey });

function motdModule(file: string): string {
  return `name: e2e-motd
description: A message of the day, in a directory the test owns
resources:
  - id: motd
    type: file
    path: ${file}
    mode: "0644"
    content: |
      Welcome to web-01
      managed by corral
`;
}

/** Both tests start from an accepted, online agent. */
async function approveAgent(orchestratorUrl: string, nodeId: string): Promise<void> {
  const api = new ApiHelper(orchestratorUrl);
  await api.signIn('admin', adminKey);
  await api.approveAndWaitOnline(nodeId);
}

async function signInAsAdmin(page: Page, orchestratorUrl: string, frame: AppFrame): Promise<void> {
  const login = new LoginPage(page);
  await login.open(orchestratorUrl);
  await login.signInWithPrivateKey('admin', adminKey.privateKey);
  await frame.expectSignedInAs('admin', 'admin');
  await frame.dismissNotices();
}

test('desired state: write a module, plan it on an agent, read the diff, apply the plan, then find drift', async ({ page, orchestrator, agent, workDir }) => {
  await approveAgent(orchestrator.url, agent.nodeId);
  const motd = path.join(workDir, 'motd');

  const frame = new AppFrame(page);
  const modules = new ModulesPage(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);
  const operations = new OperationsPage(page);

  await test.step('upload a module that manages one file', async () => {
    await signInAsAdmin(page, orchestrator.url, frame);
    await frame.go('modules', 'Modules');
    await modules.newButton.click();
    await modules.setText(motdModule(motd));
    await expect(modules.status).toContainText('Valid');
    await modules.uploadButton.click();
    await expect(modules.successNotice).toContainText('Module e2e-motd created');
    await modules.dismissNotices();
  });

  await test.step('a plan on the agent says what would change, impossible to miss, with the diff', async () => {
    await frame.go('fleet', 'Fleet');
    await fleet.openAgent(agent.nodeId);
    await agentPage.tab('operations');
    await agentPage.screenshot('agent-operations-empty');
    await agentPage.pickModules(['e2e-motd']);
    await agentPage.plan();
    await agentPage.expectOperation('plan', 'succeeded');
    await expect(page).toHaveURL(/tab=operations&operation=[0-9a-f-]{36}/);
    await expect(agentPage.wouldChange).toBeVisible();
    await expect(page.getByTestId('plan-would-change-count')).toHaveText('1 resource would change');
    await expect(agentPage.wouldChange).toContainText('e2e-motd/motd');
    const result = agentPage.result('e2e-motd/motd');
    await expect(result).toHaveAttribute('data-status', 'would_change');
    await expect(result.getByTestId('content-diff')).toContainText(motd);
    await expect(result.getByTestId('content-diff-add').filter({ hasText: '+Welcome to web-01' })).toBeVisible();
    await expect(result.getByTestId('content-diff-add').filter({ hasText: '+managed by corral' })).toBeVisible();
    expect(() => readFileSync(motd)).toThrow(); // a plan changes nothing
    await agentPage.screenshot('operation-plan');
  });

  await test.step('"Apply this plan" applies exactly that plan; the file is written', async () => {
    await agentPage.applyThisPlan();
    await agentPage.expectOperation('apply', 'succeeded');
    await expect(page.getByTestId('operation-plan-link')).toBeVisible();
    const result = agentPage.result('e2e-motd/motd');
    await expect(result).toHaveAttribute('data-status', 'changed');
    await expect(result.getByTestId('change-kind')).toHaveText('intentional');
    expect(readFileSync(motd, 'utf8')).toBe('Welcome to web-01\nmanaged by corral\n');
    await agentPage.screenshot('operation-apply');
  });

  await test.step('the State tab shows the baseline and the resource as applied', async () => {
    await agentPage.tab('state');
    await expect(page.getByTestId('state-baseline')).toContainText('e2e-motd');
    await expect(page.getByTestId('state-resource')).toHaveCount(1);
    await expect(page.getByTestId('state-resource').first()).toContainText(motd);
    await agentPage.screenshot('agent-state');
  });

  await test.step('a change by hand shows up as drift, with expected against actual', async () => {
    writeFileSync(motd, 'edited by hand\n');
    await agentPage.tab('drift');
    await agentPage.checkDrift();
    await expect(agentPage.driftRecord).toHaveAttribute('data-drifted', 'true');
    await expect(page.getByTestId('drift-badge').first()).toHaveAttribute('data-drift', 'drifted');
    const item = agentPage.driftItem('e2e-motd/motd');
    await expect(item).toBeVisible();
    await expect(item).toContainText(motd);
    await expect(page.getByTestId('drift-history-row')).toHaveCount(1);
    await agentPage.screenshot('agent-drift');
  });

  await test.step('Re-apply baseline puts the file back, as a corrective change', async () => {
    await page.getByTestId('drift-reapply').click();
    await agentPage.confirm();
    await agentPage.expectOperation('apply', 'succeeded');
    await expect(agentPage.result('e2e-motd/motd').getByTestId('change-kind')).toHaveText('corrective');
    expect(readFileSync(motd, 'utf8')).toBe('Welcome to web-01\nmanaged by corral\n');
  });

  await test.step('the Operations page lists all three, filters them, and opens one', async () => {
    await frame.go('operations', 'Operations');
    await expect(operations.rows).toHaveCount(3);
    await operations.screenshot('operations');
    await operations.filterStatus('succeeded');
    await operations.filterNode(agent.nodeId);
    await expect(operations.rows).toHaveCount(3);
    await page.getByTestId('op-filter-kind').selectOption('plan');
    await expect(operations.rows).toHaveCount(1);
    const id = (await operations.rows.first().getAttribute('data-operation')) ?? '';
    await operations.open(id);
    await expect(page.getByTestId('plan-would-change')).toBeVisible();
    await operations.back();
  });

  await test.step('the Drift page lists the agent with its latest check', async () => {
    await frame.go('drift', 'Drift');
    await expect(page.getByTestId(`drift-row-${agent.nodeId}`).getByTestId('drift-badge')).toHaveAttribute('data-drift', 'drifted');
    await operations.screenshot('drift');
    await frame.toggleTheme();
    await frame.go('operations', 'Operations');
    await operations.open((await operations.rows.last().getAttribute('data-operation')) ?? '');
    await operations.screenshot('operation-plan-dark');
    await frame.toggleTheme();
  });

  await test.step('applying that plan again is refused as stale, said beside the plan; nothing is applied', async () => {
    await agentPage.applyThisPlan();
    await expect(page.getByTestId('plan-stale')).toBeVisible();
    await expect(page.getByTestId('plan-stale-detail')).toContainText('stale');
    await expect(operations.view).toHaveAttribute('data-kind', 'plan');
    await operations.screenshot('operation-plan-stale', { keepNotices: true });
  });
});

test('assignments: a selector previews its agents live; plan and apply roll out with a fleet summary', async ({ page, orchestrator, agent, workDir }) => {
  await approveAgent(orchestrator.url, agent.nodeId);
  const motd = path.join(workDir, 'motd');

  const frame = new AppFrame(page);
  const modules = new ModulesPage(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);
  const assignments = new AssignmentsPage(page);
  const operations = new OperationsPage(page);

  await test.step('arrange: the agent is tagged role=web and the module exists', async () => {
    await signInAsAdmin(page, orchestrator.url, frame);
    await fleet.openAgent(agent.nodeId);
    await agentPage.tab('tags');
    await agentPage.addTag('role', 'web');
    await frame.dismissNotices();
    await frame.go('modules', 'Modules');
    await modules.newButton.click();
    await modules.setText(motdModule(motd));
    await modules.uploadButton.click();
    await expect(modules.successNotice).toContainText('Module e2e-motd created');
    await modules.dismissNotices();
  });

  await test.step('the new-assignment form shows which agents a selector matches, and its errors, as it is typed', async () => {
    await frame.go('assignments', 'Assignments');
    await expect(frame.nav('assignments').getByTestId('soon-badge')).toHaveCount(0);
    await assignments.screenshot('assignments-empty');
    await assignments.newButton.click();
    await expect(assignments.title).toHaveText('New assignment');
    await assignments.fill({ name: 'web-motd', selector: 'role in (web', modules: ['e2e-motd'], description: 'The message of the day on web servers' });
    await expect(page.getByTestId('selector-preview-error')).toBeVisible();
    await page.getByTestId('assignment-selector').fill('role=web');
    await expect(page.getByTestId('selector-preview-count')).toHaveAttribute('data-count', '1');
    await expect(assignments.selectorPreview).toContainText(agent.nodeId);
    await page.getByTestId('assignment-selector').fill('role=db');
    await expect(page.getByTestId('selector-preview-count')).toHaveAttribute('data-count', '0');
    await page.getByTestId('assignment-selector').fill('role=web');
    await expect(page.getByTestId('selector-preview-count')).toHaveAttribute('data-count', '1');
    await assignments.screenshot('assignment-new');
    await assignments.submit('web-motd');
    await expect(page.getByTestId('assignment-matching')).toHaveText('1 accepted');
    await assignments.dismissNotices();
  });

  await test.step('a plan runs on every matching agent: progress, headline and grouped lines', async () => {
    await assignments.run('plan');
    await expect(page).toHaveURL(/batch=[0-9a-f-]{36}/);
    await expect(assignments.headline).toBeVisible();
    await expect(page.getByTestId('fleet-group')).toHaveCount(1);
    await expect(page.getByTestId('fleet-group-label')).toContainText('1 agent');
    await expect(page.getByTestId('batch-operation')).toHaveCount(1);
    await assignments.screenshot('assignment-plan');
    expect(() => readFileSync(motd)).toThrow();
  });

  await test.step('each agent links to its operation, with the would-change banner', async () => {
    await page.getByTestId('fleet-group-node').first().click();
    await expect(operations.view).toHaveAttribute('data-kind', 'plan');
    await expect(page.getByTestId('plan-would-change')).toBeVisible();
    await page.goBack();
    await expect(assignments.batch).toBeVisible();
  });

  await test.step('apply (confirmed) writes the file on the agent', async () => {
    await assignments.run('apply');
    await expect(page.getByTestId('batch-count-succeeded')).toContainText('1');
    expect(readFileSync(motd, 'utf8')).toBe('Welcome to web-01\nmanaged by corral\n');
    await assignments.screenshot('assignment-apply');
  });

  await test.step('the list shows it; delete asks first', async () => {
    await page.getByTestId('assignments-back').click();
    await expect(assignments.row('web-motd')).toContainText('role=web');
    await expect(assignments.row('web-motd')).toContainText('e2e-motd');
    await expect(assignments.row('web-motd').getByTestId('assignment-matching')).toHaveText('1');
    await assignments.screenshot('assignments');
    await assignments.open('web-motd');
    await assignments.remove();
    await expect(assignments.row('web-motd')).toHaveCount(0);
  });
});

import { readFileSync } from 'node:fs';
import { parseAsciicast } from '../../common/asciicast.js';
import { expect, test as base } from './fixtures.js';
import { AgentPage } from './pages/agent-page.js';
import { AppFrame } from './pages/app-frame.js';
import { FleetPage } from './pages/fleet-page.js';
import { LoginPage } from './pages/login-page.js';
import { TerminalsPage, TerminalTab } from './pages/terminals-page.js';
import { startAgent, type RunningAgent } from './support/agent.js';
import { ApiHelper } from './support/api.js';
import { makeSshKey } from './support/ssh.js';

const adminKey = makeSshKey('admin@ci');

// A real corral-agent process per test, linked to that test's orchestrator and stopped after it.
const test = base.extend<{ agent: RunningAgent }>({
  agent: async ({ orchestrator }, use) => {
    const agent = await startAgent({ orchestratorUrl: orchestrator.url, nodeId: 'web-01', metricsIntervalS: 5 });
    await use(agent);
    await agent.stop();
  },
});
test.use({ adminKey });

test('a shell on an agent: connect, type, resize, disconnect, then find and replay the session', async ({ page, orchestrator, agent }) => {
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);
  await api.approveAndWaitOnline(agent.nodeId);

  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);
  const terminal = new TerminalTab(page);
  const sessions = new TerminalsPage(page);
  let sessionId = '';

  await test.step('the Terminal tab connects and the shell answers what is typed', async () => {
    await login.open(orchestrator.url);
    await login.signInWithPrivateKey('admin', adminKey.privateKey);
    await frame.expectSignedInAs('admin', 'admin');
    await expect(frame.nav('terminals').getByTestId('soon-badge')).toHaveCount(0);
    await fleet.openAgent(agent.nodeId);
    await agentPage.tab('terminal');
    // /bin/sh rather than root's login shell: a login bash runs the machine's own profile
    // (pyenv, completions...), which can stall for a minute and has nothing to do with Corral.
    await page.getByTestId('terminal-options-open').click();
    await page.getByTestId('terminal-shell').fill('/bin/sh');
    await terminal.screenshot('terminal-connect');
    await terminal.connect();
    await expect(page.getByTestId('terminal-state')).toContainText(`Connected to ${agent.nodeId}`);
    await expect(page.getByTestId('terminal-state')).toContainText('/bin/sh');
    sessionId = (await page.getByTestId('terminal-session-id').getAttribute('title')) ?? '';
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Wait for the prompt, then type: focus is in the terminal after connecting, so keys go straight to the shell.
    await expect(terminal.rows).toContainText(/[#$%>]/, { timeout: 15_000 });
    await terminal.run('echo corral-$((6*7))');
    await expect(terminal.terminal).toContainText('corral-42', { timeout: 15_000 });
    await terminal.screenshot('terminal');
  });

  await test.step('Ctrl+Shift+C copies the selection; Ctrl+Shift+V pastes into the shell', async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: orchestrator.url });
    // A double-click selects a word in xterm (on its screen layer, which sits over the text rows).
    const word = await terminal.rows.locator(':scope > div', { hasText: /^corral-42\s*$/ }).boundingBox();
    expect(word).not.toBeNull();
    await page.mouse.dblclick(word!.x + 20, word!.y + word!.height / 2);
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('corral-42');
    await page.evaluate(() => navigator.clipboard.writeText('echo pasted-$((3*3))'));
    await terminal.terminal.click();
    await page.keyboard.press('Control+Shift+V');
    await page.keyboard.press('Enter');
    await expect(terminal.terminal).toContainText('pasted-9', { timeout: 15_000 });
  });

  await test.step('the terminal follows the theme', async () => {
    const light = await terminal.terminal.locator('.xterm-viewport').evaluate((el) => getComputedStyle(el).backgroundColor);
    await frame.toggleTheme();
    expect(await frame.theme()).toBe('dark');
    await expect.poll(() => terminal.terminal.locator('.xterm-viewport').evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(light);
    await terminal.screenshot('terminal-dark');
    await frame.toggleTheme();
  });

  await test.step('resizing the window resizes the terminal and the pty, and the session keeps working', async () => {
    const before = await terminal.rowCount();
    await page.setViewportSize({ width: 1100, height: 700 });
    await expect.poll(() => terminal.rowCount()).toBeLessThan(before);
    const rows = await terminal.rowCount();
    await terminal.terminal.click();
    // stty reads the pty's size: the resize reached the agent.
    await terminal.run('echo size-$(stty size | tr " " x)-end');
    await expect(terminal.terminal).toContainText(new RegExp(`size-${rows}x\\d+-end`), { timeout: 15_000 });
    await terminal.run('echo again-$((2+3))');
    await expect(terminal.terminal).toContainText('again-5', { timeout: 15_000 });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await test.step('Disconnect ends the session and says so, with Reconnect', async () => {
    await terminal.disconnect();
    await expect(terminal.ended).toBeVisible();
    await expect(page.getByTestId('terminal-ended-reason')).not.toBeEmpty();
    await expect(page.getByTestId('terminal-ended-reconnect')).toBeEnabled();
    // What the session printed stays readable.
    await expect(terminal.terminal).toContainText('corral-42');
    await terminal.screenshot('terminal-ended');
  });

  await test.step('Reconnect opens a new session on a clean screen', async () => {
    await page.getByTestId('terminal-ended-reconnect').click();
    await expect(terminal.panel).toHaveAttribute('data-phase', 'open', { timeout: 20_000 });
    await expect(terminal.ended).toHaveCount(0);
    await expect(page.getByTestId('terminal-session-id')).not.toHaveAttribute('title', sessionId);
    await expect(terminal.terminal).not.toContainText('corral-42');
    await expect(terminal.rows).toContainText(/[#$%>]/, { timeout: 15_000 });
    await terminal.run('exit 3');
    // The shell exiting on its own ends the session too, with its exit code.
    await expect(terminal.ended).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId('terminal-ended-reason')).toContainText('code 3');
  });

  await test.step('the sessions page lists the closed session with its numbers', async () => {
    await frame.go('terminals', 'Terminals');
    await expect(sessions.rows).toHaveCount(2);
    // Most recent first: the one that exited with 3, then the one disconnected.
    await expect(sessions.rows.first().getByTestId('terminal-exit')).toHaveText('3');
    const row = sessions.row(sessionId);
    await expect(row).toHaveAttribute('data-state', 'closed');
    await expect(row).toHaveAttribute('data-node', agent.nodeId);
    await expect(row.getByTestId('terminal-reason')).not.toHaveText('—');
    await sessions.filter('open').click();
    await expect(page).toHaveURL(/state=open/);
    await expect(sessions.rows).toHaveCount(0);
    await sessions.filter('all').click();
    await expect(sessions.rows).toHaveCount(2);
    await sessions.screenshot('sessions');
  });

  await test.step('the transcript downloads as <session>.cast and is valid asciicast v2', async () => {
    const downloading = page.waitForEvent('download');
    await sessions.row(sessionId).getByTestId('terminal-download').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(`${sessionId}.cast`);
    const cast = parseAsciicast(readFileSync(await download.path(), 'utf8'));
    expect(cast.events.some((e) => e.code === 'o' && e.data.includes('corral-42'))).toBe(true);
  });

  await test.step('Replay plays the recording into a read-only terminal, with speed and seeking', async () => {
    await sessions.row(sessionId).getByTestId('terminal-replay').click();
    await expect(sessions.replay).toBeVisible();
    await page.getByTestId('replay-speed-4').click();
    await expect(page.getByTestId('replay-speed-4')).toHaveAttribute('aria-pressed', 'true');
    await expect(sessions.replayTerminal).toContainText('corral-42', { timeout: 20_000 });
    await expect(page.getByTestId('replay-toggle')).toHaveAttribute('data-playing', 'false', { timeout: 20_000 });
    await sessions.screenshot('replay');
    await frame.toggleTheme();
    await expect.poll(() => frame.theme()).toBe('dark');
    await sessions.screenshot('replay-dark');
    await frame.toggleTheme();
    // Seeking to the start redraws an empty screen; playing again draws it all back.
    await page.getByTestId('replay-progress').fill('0');
    await expect(sessions.replayTerminal).not.toContainText('corral-42');
    await page.getByTestId('replay-toggle').click();
    await expect(sessions.replayTerminal).toContainText('corral-42', { timeout: 20_000 });
    await page.getByTestId('replay-close').click();
    await expect(sessions.replay).toHaveCount(0);
  });

  await test.step('an open session is closed from the sessions page after a confirmation', async () => {
    const opened = await api.openTerminal(agent.nodeId);
    await sessions.filter('open').click();
    await expect(sessions.row(opened.session_id)).toHaveAttribute('data-state', 'open', { timeout: 10_000 });
    await sessions.row(opened.session_id).getByTestId('terminal-close').click();
    await sessions.confirm();
    await expect(sessions.successNotice.filter({ hasText: 'closed' })).toHaveCount(1);
    await expect(sessions.row(opened.session_id)).toHaveCount(0);
    await sessions.filter('closed').click();
    await expect(sessions.row(opened.session_id)).toHaveAttribute('data-state', 'closed');
  });
});

test('a viewer sees why there is no terminal for them', async ({ page, orchestrator, agent }) => {
  const viewerKey = makeSshKey('vera@desk');
  const api = new ApiHelper(orchestrator.url);
  await api.signIn('admin', adminKey);
  await api.createOperator({ operator_id: 'vera', name: 'Vera Viewer', role: 'viewer', public_keys: [viewerKey.publicKey] });
  await api.approveAndWaitOnline(agent.nodeId);

  const login = new LoginPage(page);
  const frame = new AppFrame(page);
  const fleet = new FleetPage(page);
  const agentPage = new AgentPage(page);
  await login.open(orchestrator.url);
  await login.signInWithPrivateKey('vera', viewerKey.privateKey);
  await frame.expectSignedInAs('vera', 'viewer');
  await fleet.openAgent(agent.nodeId);
  await agentPage.tab('terminal');
  await expect(page.getByTestId('terminal-why')).toContainText('operator or admin role');
  await expect(page.getByTestId('terminal-connect')).toHaveCount(0);
  await frame.go('terminals', 'Terminals');
  await expect(page.getByTestId('terminal-count')).toContainText('need the operator role');
});

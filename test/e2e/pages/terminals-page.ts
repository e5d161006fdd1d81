import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** The Terminal tab of an agent's page. */
export class TerminalTab extends BasePage {
  get panel() {
    return this.page.getByTestId('terminal-panel');
  }

  /** The xterm.js box; its DOM renderer puts the screen's rows in .xterm-rows. */
  get terminal() {
    return this.page.getByTestId('terminal');
  }

  get rows() {
    return this.terminal.locator('.xterm-rows');
  }

  get ended() {
    return this.page.getByTestId('terminal-ended');
  }

  /** Connects, with a given shell when `shell` is set (the agent's default otherwise). */
  async connect(shell?: string): Promise<void> {
    if (shell) {
      await this.page.getByTestId('terminal-options-open').click();
      await this.page.getByTestId('terminal-shell').fill(shell);
    }
    await this.page.getByTestId('terminal-connect').click();
    await expect(this.panel).toHaveAttribute('data-phase', 'open', { timeout: 20_000 });
  }

  /** Types a command line into the terminal (keystrokes go to the focused xterm) and presses Enter. */
  async run(command: string): Promise<void> {
    await this.page.keyboard.type(command);
    await this.page.keyboard.press('Enter');
  }

  async disconnect(): Promise<void> {
    await this.page.getByTestId('terminal-disconnect').click();
    await expect(this.panel).toHaveAttribute('data-phase', 'ended');
  }

  /** How many rows the screen has now (one element per row in the DOM renderer). */
  async rowCount(): Promise<number> {
    return this.rows.locator(':scope > div').count();
  }
}

/** The Terminals (sessions) page. */
export class TerminalsPage extends BasePage {
  get rows() {
    return this.page.getByTestId('terminal-row');
  }

  row(sessionId: string) {
    return this.page.locator(`[data-testid="terminal-row"][data-session="${sessionId}"]`);
  }

  filter(state: 'all' | 'open' | 'closed') {
    return this.page.getByTestId(`terminal-filter-${state}`);
  }

  get replay() {
    return this.page.getByTestId('replay');
  }

  get replayTerminal() {
    return this.page.getByTestId('replay-terminal');
  }
}

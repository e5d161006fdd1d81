import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class FleetPage extends BasePage {
  row(nodeId: string) {
    return this.page.getByTestId(`agent-row-${nodeId}`);
  }

  fingerprint(nodeId: string) {
    return this.page.getByTestId(`fingerprint-${nodeId}`);
  }

  get selector() {
    return this.page.getByTestId('selector-input');
  }

  get selectorError() {
    return this.page.getByTestId('selector-error');
  }

  statusTab(status: 'all' | 'pending' | 'accepted' | 'rejected') {
    return this.page.getByTestId(`status-tab-${status}`);
  }

  statusCount(status: 'all' | 'pending' | 'accepted' | 'rejected') {
    return this.page.getByTestId(`status-tab-count-${status}`);
  }

  async filter(selector: string): Promise<void> {
    await this.selector.fill(selector);
    await this.selector.press('Enter');
  }

  /** Ticks the agents' checkboxes and approves them with the bulk button and its confirmation. */
  async approve(...nodeIds: string[]): Promise<void> {
    for (const id of nodeIds) await this.page.getByTestId(`select-${id}`).check();
    await expect(this.page.getByTestId('bulk-bar')).toContainText(`${nodeIds.length} selected`);
    await this.page.getByTestId('bulk-approve').click();
    const dialog = this.page.getByTestId('confirm-dialog');
    await expect(dialog).toBeVisible();
    await this.page.getByTestId('confirm-ok').click();
    await expect(dialog).toBeHidden();
  }

  async openAgent(nodeId: string): Promise<void> {
    await this.page.getByTestId(`agent-link-${nodeId}`).click();
    await expect(this.title).toHaveText(nodeId);
  }
}

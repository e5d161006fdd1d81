import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class AgentPage extends BasePage {
  async tab(name: 'overview' | 'tags' | 'metrics' | 'terminal' | 'state' | 'operations' | 'drift'): Promise<void> {
    await this.page.getByTestId(`agent-tab-${name}`).click();
    await expect(this.page.getByTestId(`agent-tab-${name}`)).toHaveAttribute('aria-current', 'page');
  }

  get approval() {
    return this.page.getByTestId('approval-badge').first();
  }

  get online() {
    return this.page.getByTestId('online-state').first();
  }

  tagRow(key: string) {
    return this.page.getByTestId(`tag-row-${key}`);
  }

  tagValue(key: string) {
    return this.page.getByTestId(`tag-value-${key}`);
  }

  get newKey() {
    return this.page.getByTestId('new-tag-key');
  }

  get newKeyError() {
    return this.page.getByTestId('field-error-new-tag-key');
  }

  async addTag(key: string, value: string): Promise<void> {
    await this.newKey.fill(key);
    await this.page.getByTestId('new-tag-value').fill(value);
    await this.page.getByTestId('new-tag-add').click();
    await expect(this.tagValue(key)).toHaveText(value);
  }

  async editTag(key: string, value: string): Promise<void> {
    await this.page.getByTestId(`tag-edit-${key}`).click();
    await this.page.getByTestId('tag-edit-input').fill(value);
    await this.page.getByTestId('tag-edit-save').click();
    await expect(this.tagValue(key)).toHaveText(value);
  }

  async removeTag(key: string): Promise<void> {
    await this.page.getByTestId(`tag-remove-${key}`).click();
    await expect(this.tagRow(key)).toHaveCount(0);
  }

  async replaceTags(lines: string[]): Promise<void> {
    await this.page.getByTestId('tags-replace-open').click();
    await this.page.getByTestId('tags-replace-text').fill(lines.join('\n'));
    await this.page.getByTestId('tags-replace-submit').click();
    await expect(this.page.getByTestId('tags-replace')).toHaveCount(0);
  }

  chart(name: string) {
    return this.page.getByTestId(`chart-${name}`);
  }

  lastValue(name: string) {
    return this.page.getByTestId(`chart-last-${name}`);
  }

  // ---- desired state: the Operations, State and Drift tabs

  /** Puts modules in the run panel's picker, in this order. */
  async pickModules(names: string[]): Promise<void> {
    for (const name of names) await this.page.getByTestId('run-panel').getByTestId('module-picker-select').selectOption(name);
    await expect(this.page.getByTestId('run-panel').getByTestId('module-picker-item')).toHaveCount(names.length);
  }

  async plan(): Promise<void> {
    await this.page.getByTestId('run-plan').click();
  }

  /** The operation open in the tab (or on the Operations page). */
  get operation() {
    return this.page.getByTestId('operation-view');
  }

  /** Waits until the open operation has finished with this status. */
  async expectOperation(kind: 'plan' | 'apply', status: string): Promise<void> {
    await expect(this.operation).toHaveAttribute('data-kind', kind);
    await expect(this.operation).toHaveAttribute('data-status', status, { timeout: 30_000 });
  }

  result(resource: string) {
    return this.page.getByTestId('resource-result').and(this.page.locator(`[data-resource="${resource}"]`));
  }

  get wouldChange() {
    return this.page.getByTestId('plan-would-change');
  }

  async applyThisPlan(): Promise<void> {
    await this.page.getByTestId('operation-apply-plan').click();
  }

  get driftRecord() {
    return this.page.getByTestId('drift-record');
  }

  driftItem(resource: string) {
    return this.page.getByTestId('drift-item').and(this.page.locator(`[data-resource="${resource}"]`));
  }

  /** Check now, then wait for the agent's verdict. */
  async checkDrift(): Promise<void> {
    await this.page.getByTestId('drift-check-now').click();
    await expect(this.driftRecord).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  }
}

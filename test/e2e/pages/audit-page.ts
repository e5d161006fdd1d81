import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class AuditPage extends BasePage {
  get rows() {
    return this.page.getByTestId('audit-row');
  }

  row(action: string, target: string, outcome?: string) {
    const extra = outcome ? `[data-outcome="${outcome}"]` : '';
    return this.page.locator(`[data-testid="audit-row"][data-action="${action}"][data-target="${target}"]${extra}`);
  }

  async expand(action: string, target: string, outcome?: string) {
    const row = this.row(action, target, outcome);
    await row.getByTestId('audit-expand').click();
    return this.page.getByTestId('audit-detail').first();
  }

  async filterByAction(action: string): Promise<void> {
    await this.page.getByTestId('filter-action').fill(action);
    await this.page.getByTestId('filter-apply').click();
    await expect(this.page).toHaveURL(new RegExp(`#/audit\\?action=${encodeURIComponent(action).replace(/\*/g, '\\*')}`));
  }

  async setRetention(days: number): Promise<void> {
    await this.page.getByTestId('retention-days').fill(String(days));
    await this.page.getByTestId('retention-save').click();
    await expect(this.successNotice).toContainText('Retention saved');
  }

  /** `before` in the datetime-local form, e.g. 2099-01-01T00:00 */
  async prune(before: string): Promise<void> {
    await this.page.getByTestId('prune-before').fill(before);
    await this.page.getByTestId('prune-submit').click();
    await this.confirm();
    await expect(this.successNotice).toContainText('Pruned');
  }

  async verifyChain() {
    await this.page.getByTestId('audit-verify').click();
    const result = this.page.getByTestId('chain-result');
    await expect(result).toBeVisible();
    return result;
  }
}

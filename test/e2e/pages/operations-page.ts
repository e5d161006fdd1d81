import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** The Operations page (#/operations, filters in the address, #/operations?operation=ID opens one). */
export class OperationsPage extends BasePage {
  get rows() {
    return this.page.getByTestId('operation-row');
  }

  row(operationId: string) {
    return this.page.locator(`[data-testid="operation-row"][data-operation="${operationId}"]`);
  }

  get view() {
    return this.page.getByTestId('operation-view');
  }

  async filterStatus(status: string): Promise<void> {
    await this.page.getByTestId('op-filter-status').selectOption(status);
    await expect(this.page).toHaveURL(new RegExp(`status=${status}`));
  }

  async filterNode(nodeId: string): Promise<void> {
    await this.page.getByTestId('op-filter-node').fill(nodeId);
    await this.page.getByTestId('op-filter-apply').click();
    await expect(this.page).toHaveURL(new RegExp(`node=${nodeId}`));
  }

  async open(operationId: string): Promise<void> {
    await this.row(operationId).getByTestId('operation-link').click();
    await expect(this.view).toHaveAttribute('data-operation', operationId);
  }

  async back(): Promise<void> {
    await this.page.getByTestId('operations-back').click();
    await expect(this.title).toHaveText('Operations');
  }
}

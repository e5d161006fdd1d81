import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class OperatorsPage extends BasePage {
  row(operatorId: string) {
    return this.page.getByTestId(`operator-row-${operatorId}`);
  }

  get addButton() {
    return this.page.getByTestId('add-operator-open');
  }

  get removeButtons() {
    return this.page.locator('[data-testid^="remove-operator-"]');
  }

  async fillNewOperator(operator: { id: string; name?: string; role: string; keys: string[] }): Promise<void> {
    if (!(await this.page.getByTestId('add-operator-form').isVisible())) await this.addButton.click();
    await this.page.getByTestId('new-operator-id').fill(operator.id);
    await this.page.getByTestId('new-operator-name').fill(operator.name ?? '');
    await this.page.getByTestId('new-operator-role').selectOption(operator.role);
    await this.page.getByTestId('new-operator-keys').fill(operator.keys.join('\n'));
    await this.page.getByTestId('new-operator-submit').click();
  }

  async addOperator(operator: { id: string; name?: string; role: string; keys: string[] }): Promise<void> {
    await this.fillNewOperator(operator);
    await expect(this.row(operator.id)).toBeVisible();
  }
}

import { BasePage } from './base.js';

export class SecretsPage extends BasePage {
  row(name: string) {
    return this.page.getByTestId(`secret-row-${name}`);
  }

  get newButton() {
    return this.page.getByTestId('secret-new');
  }

  async create(name: string, value: string, description: string): Promise<void> {
    await this.newButton.click();
    await this.page.getByTestId('new-secret-name').fill(name);
    await this.page.getByTestId('new-secret-value').fill(value);
    await this.page.getByTestId('new-secret-description').fill(description);
    await this.page.getByTestId('new-secret-submit').click();
  }
}

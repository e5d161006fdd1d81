import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class SetupPage extends BasePage {
  async open(setupUrl: string): Promise<void> {
    await this.page.goto(setupUrl);
    await expect(this.title).toHaveText('Set up Corral');
  }

  async createAdminWithBrowserKey(name: string): Promise<void> {
    await this.page.getByTestId('setup-name').fill(name);
    await this.page.getByTestId('setup-mode-browser').check();
    await this.page.getByTestId('setup-submit').click();
  }
}

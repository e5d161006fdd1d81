import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** Header and navigation around every signed-in page. */
export class AppFrame extends BasePage {
  get operatorId() {
    return this.page.getByTestId('current-operator-id');
  }

  async expectSignedInAs(operatorId: string, role: string): Promise<void> {
    await expect(this.operatorId).toHaveText(operatorId);
    await expect(this.page.getByTestId('current-operator').getByTestId('role-badge')).toHaveText(role);
  }

  nav(area: string) {
    return this.page.getByTestId(`nav-${area}`);
  }

  async go(area: string, title: string): Promise<void> {
    await this.nav(area).click();
    await expect(this.title).toHaveText(title);
  }

  async toggleTheme(): Promise<void> {
    await this.page.getByTestId('theme-toggle').click();
  }

  async theme(): Promise<string | null> {
    return this.page.locator('html').getAttribute('data-theme');
  }

  async signOut(): Promise<void> {
    await this.page.getByTestId('sign-out').click();
  }
}

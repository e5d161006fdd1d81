import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class LoginPage extends BasePage {
  async open(baseUrl: string): Promise<void> {
    await this.page.goto(`${baseUrl}/#/login`);
    await this.expectShown();
  }

  async expectShown(): Promise<void> {
    await expect(this.title).toHaveText('Sign in');
  }

  get operatorId() {
    return this.page.getByTestId('login-operator-id');
  }

  get keyState() {
    return this.page.getByTestId('login-key-state');
  }

  async signInWithBrowserKey(operatorId: string): Promise<void> {
    await this.operatorId.fill(operatorId);
    await expect(this.keyState).toContainText('This browser keeps a key');
    await this.page.getByTestId('login-browser-key').click();
  }

  /** Generates a browser key for an operator on the sign-in page; returns its public key line. */
  async generateKey(operatorId: string): Promise<string> {
    await this.operatorId.fill(operatorId);
    const section = this.page.getByTestId('login-generate-section');
    if ((await section.getAttribute('open')) === null) await section.locator('summary').click();
    await this.page.getByTestId('login-generate').click();
    const line = this.page.getByTestId('generated-public-key');
    await expect(line).toBeVisible();
    await expect(this.keyState).toContainText('This browser keeps a key');
    return (await line.textContent())!.trim();
  }

  async signInWithPrivateKey(operatorId: string, privateKey: string): Promise<void> {
    await this.operatorId.fill(operatorId);
    const section = this.page.getByTestId('login-import-section');
    if ((await section.getAttribute('open')) === null) await section.locator('summary').click();
    await this.page.getByTestId('login-private-key').fill(privateKey);
    await this.page.getByTestId('login-import-submit').click();
  }
}

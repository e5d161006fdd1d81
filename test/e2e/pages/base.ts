import { expect, type Page } from '@playwright/test';
import path from 'node:path';
import { SCREENSHOT_DIR } from '../support/paths.js';

export abstract class BasePage {
  constructor(readonly page: Page) {}

  get title() {
    return this.page.getByTestId('page-title');
  }

  get successNotice() {
    return this.page.getByTestId('notice-success');
  }

  async confirm(): Promise<void> {
    await expect(this.page.getByTestId('confirm-dialog')).toBeVisible();
    await this.page.getByTestId('confirm-ok').click();
  }

  get errorNotice() {
    return this.page.getByTestId('notice-error');
  }

  async dismissNotices(): Promise<void> {
    const buttons = this.page.getByTestId('notice-dismiss');
    while ((await buttons.count()) > 0) await buttons.first().click();
  }

  /** Full-page screenshot into test-results/screenshots/NAME.png, by default after any banners are gone. */
  async screenshot(name: string, options: { keepNotices?: boolean } = {}): Promise<void> {
    if (!options.keepNotices) {
      await this.dismissNotices();
      await expect(this.page.getByTestId('notice-success')).toHaveCount(0, { timeout: 10_000 });
    }
    // A full-page capture of a scrolled page draws the sticky header part-way down.
    await this.page.evaluate(() => window.scrollTo(0, 0));
    await this.page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, animations: 'disabled' });
  }
}

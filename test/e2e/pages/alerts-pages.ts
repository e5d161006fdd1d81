import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** The top bar's notification bell and its panel. */
export class NotificationBell extends BasePage {
  get button() {
    return this.page.getByTestId('bell');
  }

  get count() {
    return this.page.getByTestId('bell-count');
  }

  get panel() {
    return this.page.getByTestId('bell-panel');
  }

  /** The unread count the badge shows (0 when there is no badge). */
  async unread(): Promise<number> {
    return (await this.count.count()) ? Number(await this.count.textContent()) : 0;
  }

  async open(): Promise<void> {
    if ((await this.panel.count()) === 0) await this.button.click();
    await expect(this.panel).toBeVisible();
  }

  async markAllRead(): Promise<void> {
    await this.open();
    await this.page.getByTestId('bell-mark-all').click();
  }
}

export class NotificationsPage extends BasePage {
  get items() {
    return this.page.getByTestId('notifications-list').locator('[data-kind]');
  }

  item(kind: string) {
    return this.page.getByTestId('notifications-list').locator(`[data-kind="${kind}"]`);
  }
}

export class ChannelsPage extends BasePage {
  row(name: string) {
    return this.page.getByTestId(`channel-row-${name}`);
  }

  config(key: string) {
    return this.page.getByTestId(`channel-config-${key}`);
  }

  async createWebhook(name: string, url: string): Promise<void> {
    await this.page.getByTestId('channel-new').click();
    await expect(this.title).toHaveText('New channel');
    await this.page.getByTestId('channel-name').fill(name);
    await this.page.getByTestId('channel-type').selectOption('webhook');
    await this.config('url').fill(url);
    await this.page.getByTestId('channel-submit').click();
    await expect(this.title).toHaveText(name);
  }

  get testButton() {
    return this.page.getByTestId('channel-test');
  }

  get outcome() {
    return this.page.getByTestId('test-outcome');
  }

  get deliveries() {
    return this.page.getByTestId('deliveries-table').locator('tbody tr');
  }
}

export class MaintenancePage extends BasePage {
  row(name: string) {
    return this.page.getByTestId(`window-row-${name}`);
  }

  status(name: string) {
    return this.row(name).getByTestId('window-status');
  }

  async create(input: { name: string; selector: string; duration: '30m' | '1h' | '2h' | '4h' | '8h' | '24h'; reason?: string }): Promise<void> {
    await this.page.getByTestId('window-new').click();
    await this.page.getByTestId('window-name').fill(input.name);
    await this.page.getByTestId('window-selector').fill(input.selector);
    await this.page.getByTestId(`window-duration-${input.duration}`).click();
    if (input.reason) await this.page.getByTestId('window-reason').fill(input.reason);
  }

  async submit(): Promise<void> {
    await this.page.getByTestId('window-submit').click();
  }

  async endNow(name: string): Promise<void> {
    await this.page.getByTestId(`window-end-${name}`).click();
    await this.confirm();
  }
}

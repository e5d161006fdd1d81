import { expect } from '@playwright/test';
import { BasePage } from './base.js';

export class AgentPage extends BasePage {
  async tab(name: 'overview' | 'tags' | 'metrics' | 'terminal'): Promise<void> {
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
}

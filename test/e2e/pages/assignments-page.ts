import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** The Assignments list, the new-assignment form and one assignment (#/assignments?assignment=NAME). */
export class AssignmentsPage extends BasePage {
  row(name: string) {
    return this.page.getByTestId(`assignment-row-${name}`);
  }

  get newButton() {
    return this.page.getByTestId('assignment-new');
  }

  get selectorPreview() {
    return this.page.getByTestId('selector-preview');
  }

  /** Fills the form: selector typed (the preview follows), modules picked in order. */
  async fill(options: { name: string; selector: string; modules: string[]; description?: string; onlyInMaintenance?: boolean }): Promise<void> {
    await this.page.getByTestId('assignment-name').fill(options.name);
    if (options.description) await this.page.getByTestId('assignment-description').fill(options.description);
    await this.page.getByTestId('assignment-selector').fill(options.selector);
    for (const m of options.modules) await this.page.getByTestId('assignment-form').getByTestId('module-picker-select').selectOption(m);
    if (options.onlyInMaintenance) await this.page.getByTestId('assignment-maintenance').check();
  }

  async submit(name: string): Promise<void> {
    await this.page.getByTestId('assignment-submit').click();
    await expect(this.title).toHaveText(name);
  }

  async open(name: string): Promise<void> {
    await this.page.getByTestId(`assignment-link-${name}`).click();
    await expect(this.title).toHaveText(name);
  }

  get batch() {
    return this.page.getByTestId('batch');
  }

  /** Plan (or Apply, confirmed) and wait for the batch to finish. */
  async run(kind: 'plan' | 'apply'): Promise<void> {
    await this.page.getByTestId(`assignment-${kind}`).click();
    if (kind === 'apply') await this.confirm();
    await expect(this.batch).toHaveAttribute('data-kind', kind);
    await expect(this.page.getByTestId('batch-progress')).toHaveAttribute('data-done', 'true', { timeout: 30_000 });
  }

  get headline() {
    return this.page.getByTestId('fleet-headline');
  }

  async remove(): Promise<void> {
    await this.page.getByTestId('assignment-delete').click();
    await this.confirm();
    await expect(this.title).toHaveText('Assignments');
  }
}

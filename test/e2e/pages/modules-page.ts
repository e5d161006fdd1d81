import { expect } from '@playwright/test';
import { BasePage } from './base.js';

/** The Modules list and the module editor (#/modules, #/modules?module=NAME, #/modules?new=1). */
export class ModulesPage extends BasePage {
  row(name: string) {
    return this.page.getByTestId(`module-row-${name}`);
  }

  get newButton() {
    return this.page.getByTestId('module-new');
  }

  get uploadButton() {
    return this.page.getByTestId('module-upload');
  }

  get deleteButton() {
    return this.page.getByTestId('module-delete');
  }

  get editor() {
    return this.page.getByTestId('module-editor');
  }

  get errors() {
    return this.page.getByTestId('module-error');
  }

  get status() {
    return this.page.getByTestId('module-status');
  }

  /** The editor's text line (1-based) as CodeMirror draws it. */
  line(n: number) {
    return this.editor.locator('.cm-line').nth(n - 1);
  }

  async open(name: string): Promise<void> {
    await this.page.getByTestId(`module-link-${name}`).click();
    await expect(this.title).toHaveText(name);
    await expect(this.editor).toHaveAttribute('data-ready', 'true');
  }

  /** Replaces the editor's whole text, as a paste would. */
  async setText(text: string): Promise<void> {
    await expect(this.editor).toHaveAttribute('data-ready', 'true');
    await this.editor.locator('.cm-content').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
  }

  async text(): Promise<string> {
    return (await this.editor.locator('.cm-line').allInnerTexts()).join('\n');
  }
}

import { BasePage } from './base.js';

export class TagsPage extends BasePage {
  key(key: string) {
    return this.page.getByTestId(`tag-key-${key}`);
  }

  value(key: string, value: string) {
    return this.page.getByTestId(`tag-value-${key}-${value}`);
  }
}

export type NoticeKind = 'error' | 'success' | 'info';

export interface Notice {
  id: number;
  kind: NoticeKind;
  title: string;
  detail?: string;
  /** What the operator was doing, e.g. "Adding the operator". */
  context?: string;
  /** HTTP status and stable problem code, when the orchestrator sent one. */
  status?: number;
  code?: string;
}

const SUCCESS_MS = 6000;

/** The dismissable banners at the top of the page. */
export class Notices {
  items = $state<Notice[]>([]);
  private next = 1;

  push(notice: Omit<Notice, 'id'>): number {
    const id = this.next++;
    // The same failure twice in a row shows once.
    this.items = [...this.items.filter((n) => !(n.title === notice.title && n.detail === notice.detail)), { ...notice, id }];
    if (notice.kind === 'success') setTimeout(() => this.dismiss(id), SUCCESS_MS);
    return id;
  }

  success(title: string, detail?: string): number {
    return this.push({ kind: 'success', title, detail });
  }

  info(title: string, detail?: string): number {
    return this.push({ kind: 'info', title, detail });
  }

  dismiss(id: number): void {
    this.items = this.items.filter((n) => n.id !== id);
  }

  clearErrors(): void {
    this.items = this.items.filter((n) => n.kind !== 'error');
  }
}

export const notices = new Notices();

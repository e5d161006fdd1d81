export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  danger?: boolean;
}

interface Pending extends ConfirmRequest {
  resolve: (ok: boolean) => void;
}

/** One modal question at a time; ConfirmHost shows it. */
export class Confirmations {
  pending = $state<Pending | null>(null);

  ask(request: ConfirmRequest): Promise<boolean> {
    this.pending?.resolve(false);
    return new Promise((resolve) => {
      this.pending = { ...request, resolve };
    });
  }

  answer(ok: boolean): void {
    const pending = this.pending;
    this.pending = null;
    pending?.resolve(ok);
  }
}

export const confirmations = new Confirmations();

export function confirmAction(request: ConfirmRequest): Promise<boolean> {
  return confirmations.ask(request);
}

import { SshFormatError } from '../../../../common/openssh.js';
import { ApiError, LocalError, NetworkError } from '../api/errors.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { router } from '../state/router.svelte.js';
import { session } from '../state/session.svelte.js';

/**
 * Every failed action ends here: it shows the problem's title and detail in a
 * banner, puts field errors next to the form's fields, and sends an ended
 * session back to the sign-in page.
 *
 * @param context what was being done, e.g. "Adding the operator"
 */
export function handleError(error: unknown, context: string, form?: FormErrors): void {
  form?.clear();
  if (error instanceof ApiError) {
    const { problem } = error;
    if (problem.status === 401 && error.authenticated) {
      session.end();
      notices.push({ kind: 'error', title: 'Your session has ended', detail: `${problem.detail ?? problem.title}. Sign in again to continue.`, code: problem.code, status: 401 });
      if (router.path !== '/login') router.replace('/login', { next: router.path });
      return;
    }
    if (form && problem.errors?.length) form.set(problem.errors);
    notices.push({ kind: 'error', title: problem.title, detail: problem.detail, context, status: problem.status, code: problem.code });
    return;
  }
  if (error instanceof NetworkError) {
    notices.push({
      kind: 'error',
      title: 'Cannot reach the orchestrator',
      detail: `The request to ${error.url} got no answer. Check that Corral is running and reachable from this computer, then try again.`,
      context,
      code: 'network-error',
    });
    return;
  }
  if (error instanceof LocalError) {
    notices.push({ kind: 'error', title: error.title, detail: error.message, context });
    return;
  }
  if (error instanceof SshFormatError) {
    notices.push({ kind: 'error', title: 'Not a usable OpenSSH key', detail: error.message, context });
    return;
  }
  console.error(context, error);
  notices.push({ kind: 'error', title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error), context });
}

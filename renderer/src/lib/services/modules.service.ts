import type { ModuleDetails, ModuleSummary, ModuleUploadResponse, UploadResult } from '../../../../common/schemas/modules.js';
import { ApiError } from '../api/errors.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

/** One error inside a module's text, from the browser's validator or the server's 400 invalid-module. */
export interface ModuleLineError {
  line: number;
  resource?: string;
  message: string;
}

/** Every module, following next_cursor (a few hundred at most in practice). */
export async function loadModules(): Promise<ModuleSummary[] | undefined> {
  try {
    const items: ModuleSummary[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listModules({ limit: 1000, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < 10_000);
    return items;
  } catch (err) {
    handleError(err, 'Loading modules');
    return undefined;
  }
}

export async function loadModule(name: string, revision?: number): Promise<ModuleDetails | undefined> {
  try {
    return await api.getModule(name, revision);
  } catch (err) {
    handleError(err, revision ? `Loading ${name} revision ${revision}` : `Loading module ${name}`);
    return undefined;
  }
}

export type UploadOutcome = { ok: true; module: ModuleUploadResponse } | { ok: false; errors: ModuleLineError[] };

const RESULT_TEXT: Record<UploadResult, (m: ModuleUploadResponse) => { title: string; detail: string }> = {
  created: (m) => ({ title: `Module ${m.name} created`, detail: `Revision 1, ${m.resource_count} resource${m.resource_count === 1 ? '' : 's'}.` }),
  revised: (m) => ({ title: `Module ${m.name} revised`, detail: `Now at revision ${m.revision}.` }),
  unchanged: (m) => ({ title: `Module ${m.name} unchanged`, detail: `The text equals revision ${m.revision}; nothing was stored.` }),
};

/** Uploads the text; a 400 invalid-module answers with its line errors so the editor can mark them. */
export async function uploadModule(content: string): Promise<UploadOutcome> {
  try {
    const module = await api.uploadModule(content);
    const { title, detail } = RESULT_TEXT[module.result](module);
    notices.success(title, detail);
    return { ok: true, module };
  } catch (err) {
    handleError(err, 'Uploading the module');
    if (err instanceof ApiError && err.code === 'invalid-module') {
      const errors = (err.problem.errors ?? []).map((e) => ({ line: e.line ?? 1, resource: e.resource, message: e.message }));
      return { ok: false, errors };
    }
    return { ok: false, errors: [] };
  }
}

export async function deleteModule(module: Pick<ModuleSummary, 'name' | 'revision'>): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete module ${module.name}?`,
    message: `All ${module.revision} revision${module.revision === 1 ? '' : 's'} of ${module.name} are removed. Machines keep what was applied. This cannot be undone.`,
    confirmLabel: 'Delete module',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteModule(module.name);
    notices.success(`Module ${module.name} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${module.name}`);
    return false;
  }
}

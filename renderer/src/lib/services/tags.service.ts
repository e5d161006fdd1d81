import type { TagSummary } from '../api/client.js';
import { api } from '../api/index.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

export type Tags = Record<string, string>;

export async function loadTagSummary(): Promise<TagSummary[] | undefined> {
  try {
    return (await api.listTags()).items;
  } catch (err) {
    handleError(err, 'Loading tags');
    return undefined;
  }
}

/** Sets one tag; returns the agent's tags afterwards. Errors on params.key / body.value land on `form`. */
export async function setTag(nodeId: string, key: string, value: string, form: FormErrors): Promise<Tags | undefined> {
  try {
    const result = await api.setTag(nodeId, key, value);
    form.clear();
    notices.success(`Tag ${key} set`, `${nodeId}: ${key}=${value}`);
    return result.tags;
  } catch (err) {
    handleError(err, `Setting tag ${key} on ${nodeId}`, form);
    return undefined;
  }
}

export async function removeTag(nodeId: string, key: string): Promise<Tags | undefined> {
  try {
    const result = await api.removeTag(nodeId, key);
    notices.success(`Tag ${key} removed`, `from ${nodeId}`);
    return result.tags;
  } catch (err) {
    handleError(err, `Removing tag ${key} from ${nodeId}`);
    return undefined;
  }
}

/** Replaces the whole tag set; a refused key comes back as errors on `body.<key>`. */
export async function replaceTags(nodeId: string, tags: Tags, form: FormErrors): Promise<Tags | undefined> {
  try {
    const result = await api.replaceTags(nodeId, tags);
    form.clear();
    const n = Object.keys(result.tags).length;
    notices.success('Tags replaced', `${nodeId} now has ${n} tag${n === 1 ? '' : 's'}.`);
    return result.tags;
  } catch (err) {
    handleError(err, `Replacing the tags of ${nodeId}`, form);
    return undefined;
  }
}

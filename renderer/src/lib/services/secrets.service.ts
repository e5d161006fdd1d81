import type { CreateSecretRequest, SecretMetadata, UpdateSecretRequest } from '../../../../common/schemas/secrets.js';
import { api } from '../api/index.js';
import { confirmAction } from '../state/confirm.svelte.js';
import type { FormErrors } from '../state/form-errors.svelte.js';
import { notices } from '../state/notices.svelte.js';
import { handleError } from '../utils/handle-error.js';

// Values pass through these functions once, into the request body, and are never
// kept, returned, logged or shown: every answer is metadata only.

export async function loadSecrets(): Promise<SecretMetadata[] | undefined> {
  try {
    const items: SecretMetadata[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.listSecrets({ limit: 1000, cursor });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor && items.length < 10_000);
    return items;
  } catch (err) {
    handleError(err, 'Loading secrets');
    return undefined;
  }
}

export async function createSecret(request: CreateSecretRequest, form: FormErrors): Promise<SecretMetadata | undefined> {
  try {
    const created = await api.createSecret(request);
    form.clear();
    notices.success(`Secret ${created.name} created`, `Modules can use it as {{ secrets.${created.name} }}.`);
    return created;
  } catch (err) {
    handleError(err, 'Creating the secret', form);
    return undefined;
  }
}

export async function updateSecret(name: string, request: UpdateSecretRequest, form: FormErrors): Promise<SecretMetadata | undefined> {
  try {
    const updated = await api.updateSecret(name, request);
    form.clear();
    notices.success(
      `Secret ${name} updated`,
      request.value !== undefined ? `New value stored as version ${updated.version}.` : 'Description changed; the value is unchanged.',
    );
    return updated;
  } catch (err) {
    handleError(err, `Updating ${name}`, form);
    return undefined;
  }
}

export async function deleteSecret(secret: SecretMetadata): Promise<boolean> {
  const ok = await confirmAction({
    title: `Delete secret ${secret.name}?`,
    message: secret.used_by.length
      ? `Modules ${secret.used_by.join(', ')} reference it; the orchestrator refuses while they do.`
      : `The value is destroyed and cannot be recovered.`,
    confirmLabel: 'Delete secret',
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.deleteSecret(secret.name);
    notices.success(`Secret ${secret.name} deleted`);
    return true;
  } catch (err) {
    handleError(err, `Deleting ${secret.name}`);
    return false;
  }
}

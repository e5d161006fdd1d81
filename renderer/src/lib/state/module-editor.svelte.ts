import type { ModuleError, ParseModuleOptions, ParseModuleResult } from '../../../../common/modules/validate.js';
import type { ModuleDetails } from '../api/client.js';
import { loadModule, uploadModule, type ModuleLineError } from '../services/modules.service.js';
import { loadSecrets } from '../services/secrets.service.js';

type Parser = (text: string, options?: ParseModuleOptions) => ParseModuleResult;

/** A small module to start from: one templated file, using a variable and facts from the agent. */
export const MODULE_TEMPLATE = `# A message of the day that says which machine you are on.
name: motd
description: Message of the day with the host name and role
vars:
  owner_team: platform
resources:
  - id: motd
    type: file
    path: /etc/motd
    mode: "0644"
    owner: root
    group: root
    template: |
      Welcome to {{ attributes.hostname }}.
      Role: {{ tags.role }}, environment: {{ tags.env }}
      Managed by Corral for {{ vars.owner_team }}.
`;

/**
 * The module editor: the text being edited, the module it came from, the browser's
 * own validation (common/modules, loaded with the editor) and the server's last verdict.
 */
export class ModuleEditorState {
  /** The module as stored (current revision), or undefined for a new one. */
  details = $state<ModuleDetails>();
  text = $state('');
  loading = $state(false);
  uploading = $state(false);
  /** The 400 invalid-module errors, and the text they were about (they lapse once it changes). */
  serverErrors = $state<{ text: string; errors: ModuleLineError[] }>();
  /** Names of existing secrets, so an unknown {{ secrets.X }} is caught before upload. */
  secretNames = $state<string[]>();
  private parser = $state<Parser>();

  /** null until the validator has loaded. */
  readonly result = $derived.by((): ParseModuleResult | null => {
    const parse = this.parser;
    if (!parse) return null;
    const names = this.secretNames;
    return parse(this.text, names ? { secretExists: (n) => names.includes(n) } : {});
  });

  readonly localErrors = $derived<ModuleError[]>(this.result && !this.result.ok ? this.result.errors : []);

  /** What the editor marks and the list below shows: the browser's errors, else the server's for this exact text. */
  readonly errors = $derived.by((): ModuleLineError[] => {
    if (this.localErrors.length) return this.localErrors;
    const server = this.serverErrors;
    return server && server.text === this.text ? server.errors : [];
  });

  readonly dirty = $derived(this.text !== (this.details?.content ?? ''));

  async init(name: string | undefined): Promise<void> {
    this.loading = true;
    const [validator, details, secrets] = await Promise.all([
      import('../../../../common/modules/validate.js'),
      name ? loadModule(name) : Promise.resolve(undefined),
      loadSecrets(),
    ]);
    this.parser = validator.parseModule;
    if (secrets) this.secretNames = secrets.map((s) => s.name);
    this.details = details;
    this.text = details?.content ?? (name ? '' : MODULE_TEMPLATE);
    this.loading = false;
  }

  /** Uploads the text; answers the stored module on success. */
  async upload(): Promise<ModuleDetails | undefined> {
    const text = this.text;
    this.uploading = true;
    const outcome = await uploadModule(text);
    this.uploading = false;
    if (!outcome.ok) {
      this.serverErrors = { text, errors: outcome.errors };
      return undefined;
    }
    this.serverErrors = undefined;
    this.details = outcome.module;
    return outcome.module;
  }

  async reload(): Promise<void> {
    const name = this.details?.name;
    if (!name) return;
    const details = await loadModule(name);
    if (details) this.details = details;
  }
}

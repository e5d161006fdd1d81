// Resource providers by type. One file per provider; a second registration of a type is refused.
import type { ResourceType } from '../../common/modules/index.js';
import type { Provider } from './types.js';
import { fileProvider } from './file.js';
import { directoryProvider } from './directory.js';
import { symlinkProvider } from './symlink.js';
import { lineProvider } from './line.js';
import { scriptProvider } from './script.js';
import { groupProvider } from './group.js';
import { userProvider } from './user.js';
import { packageProvider } from './package.js';
import { serviceProvider } from './service.js';

export class ProviderRegistry {
  private readonly providers = new Map<ResourceType, Provider>();

  register(provider: Provider): this {
    if (this.providers.has(provider.type)) throw new Error(`a provider for "${provider.type}" is already registered`);
    this.providers.set(provider.type, provider);
    return this;
  }

  get(type: ResourceType): Provider | undefined {
    return this.providers.get(type);
  }

  types(): ResourceType[] {
    return [...this.providers.keys()];
  }
}

/** Every built provider: one per resource type. */
export function defaultRegistry(): ProviderRegistry {
  return new ProviderRegistry()
    .register(fileProvider as Provider)
    .register(directoryProvider as Provider)
    .register(symlinkProvider as Provider)
    .register(lineProvider as Provider)
    .register(scriptProvider as Provider)
    .register(groupProvider as Provider)
    .register(userProvider as Provider)
    .register(packageProvider as Provider)
    .register(serviceProvider as Provider);
}

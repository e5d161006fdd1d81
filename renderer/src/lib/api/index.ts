import { session } from '../state/session.svelte.js';
import { ApiClient } from './client.js';

/** The client every service uses; it carries the current session's token. */
export const api = new ApiClient(() => session.token);

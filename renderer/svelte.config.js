// Read by @sveltejs/vite-plugin-svelte (Vite root is renderer/) and by svelte-check.
export default {
  compilerOptions: { runes: true },
};

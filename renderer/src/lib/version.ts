/** The Corral package version this UI was built from (vite.config.ts defines it from package.json). */
export const UI_VERSION: string = __CORRAL_VERSION__;

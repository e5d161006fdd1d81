// The module format, one browser-safe place: the orchestrator validates uploads
// with it, the renderer's editor will show the same errors inline.
export * from './spec.js';
export * from './validate.js';

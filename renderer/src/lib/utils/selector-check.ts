import { parseSelector, SelectorError } from '../../../../common/selector.js';

export interface SelectorProblem {
  /** What is wrong, without the position. */
  reason: string;
  /** 0-based index into the text. */
  position: number;
}

/** The first problem in a selector, as common/selector.ts (the orchestrator's parser) finds it; undefined when it parses. */
export function selectorProblem(text: string): SelectorProblem | undefined {
  try {
    parseSelector(text);
    return undefined;
  } catch (err) {
    if (err instanceof SelectorError) return { reason: err.reason, position: err.position };
    throw err;
  }
}

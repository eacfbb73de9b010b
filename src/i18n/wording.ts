import type { MessageValues, Translator } from './translator.js';

/**
 * Words written for one reader when the page is made: a cause that must reach staff in their language,
 * built where its facts are known (an error, a role decision) and worded where the reader is known.
 */
export type Wording = (t: Translator) => string;

/** One catalog message as a wording. */
export function wording(key: string, values?: MessageValues): Wording {
  return (t) => t.t(key, values);
}

/** Several wordings as one paragraph. */
export function sentences(...parts: readonly Wording[]): Wording {
  return (t) => parts.map((part) => part(t)).join(' ');
}

import { translator, type Translator } from '../../i18n/index.js';
import type { I18nLocals } from '../../i18n/middleware.js';
import type { Translate } from '../../proctoring/labels.js';

/** What the settings page needs from a translator: the reader's language and direction, messages, dates. */
export type PageI18n = Translator;

/** English, for a request that carries no translator. */
export const ENGLISH: PageI18n = translator('en');

/** The request's translator (`res.locals.i18n`, src/i18n/middleware.ts), else English. */
export function pageI18n(locals: Readonly<Partial<I18nLocals>>): PageI18n {
  return locals.i18n ?? ENGLISH;
}

/** Marks where an argument's HTML goes (a character no message contains). */
const SLOT = '\u{E000}';
const SLOTS = new RegExp(`${SLOT}(\\d+)${SLOT}`, 'u');

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A message with markup around some arguments (`<code>` around an address): the message's own text is
 * escaped, each argument is given as HTML the caller built (and escaped) itself.
 */
export function htmlMessage(t: Translate, key: string, html: Readonly<Record<string, string>>): string {
  const names = Object.keys(html);
  const slots = Object.fromEntries(names.map((name, index) => [name, `${SLOT}${index}${SLOT}`]));
  return t(key, slots)
    .split(SLOTS)
    .map((part, index) => (index % 2 === 1 ? (html[names[Number(part)] ?? ''] ?? '') : escapeHtml(part)))
    .join('');
}

import type { Response } from 'express';
import { DEFAULT_LOCALE, translator, type MessageValues, type Translator } from '../i18n/index.js';
import { chosenTranslator } from '../i18n/middleware.js';
import type { FieldProblem } from '../lti/platform-input.js';

/**
 * The console's language: the request's translator (`res.locals.i18n`, chosen from Accept-Language by the
 * i18n middleware; the console has no LTI launch), and the helpers its views use. Stored data stays as it
 * is: audit entries, LTI values, ids and URLs are shown untranslated.
 */
export type Translate = (key: string, values?: MessageValues) => string;

export function translatorOf(res: Response): Translator {
  return chosenTranslator(res) ?? translator(DEFAULT_LOCALE);
}

/** `t` of the request, for route handlers. */
export function textOf(res: Response): Translate {
  const i18n = translatorOf(res);
  return (key, values) => i18n.t(key, values);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A value already made HTML by the view (a <time> element): put into a message as it is. */
export interface HtmlValue {
  html: string;
}

/**
 * Helpers every console view gets. `th` renders a catalog message that contains markup (<code>, <strong>, <em>,
 * and <link>…</link> for a link, whose address the view gives: catalogs hold no URLs): the message is ours,
 * every value is escaped unless given as `{ html }`. Times are shown in the
 * administrator's language and in UTC, as the column headings say (the console has no user time zone).
 */
export function viewHelpers(i18n: Translator) {
  const numbers = new Intl.NumberFormat(i18n.locale);
  const milliseconds = new Intl.NumberFormat(i18n.locale, { style: 'unit', unit: 'millisecond', unitDisplay: 'short' });
  return {
    h: escapeHtml,
    th(key: string, values: Record<string, string | number | HtmlValue> = {}, link?: string): string {
      const escaped = Object.fromEntries(
        Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? escapeHtml(value) : typeof value === 'number' ? value : value.html]),
      );
      const html = i18n.t(key, escaped);
      return link === undefined ? html : html.replace('<link>', `<a href="${escapeHtml(link)}">`).replace('</link>', '</a>');
    },
    when(date: Date, withSeconds = false): string {
      return i18n.formatDateTime(date, { timeZone: 'UTC', dateStyle: 'medium', timeStyle: withSeconds ? 'medium' : 'short' });
    },
    formatNumber: (value: number) => numbers.format(value),
    formatMilliseconds: (value: number) => milliseconds.format(value),
    formatList: (items: readonly string[]) => i18n.formatList(items),
  };
}

/** Labels of the fields whose problems the shared checks report with a code (src/lti/platform-input.ts, src/institution/validation.ts). */
const PROBLEM_LABELS = new Set(['issuer', 'authUrl', 'tokenUrl', 'jwksUrl', 'authorizationServer', 'primaryColor', 'secondaryColor']);

/**
 * A problem of the shared checks in the administrator's language: those that carry a `code` have a message
 * in the `admin:problems` catalog; the others (schema details) keep their English message.
 */
export function localizedProblem(t: Translate, problem: FieldProblem): FieldProblem {
  if (!problem.code) return problem;
  const values: MessageValues = { ...problem.values };
  if (PROBLEM_LABELS.has(problem.field)) values.label = t(`admin:problems.labels.${problem.field}`);
  return { ...problem, message: t(`admin:problems.${problem.code}`, values) };
}

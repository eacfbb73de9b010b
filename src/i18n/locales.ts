/**
 * The languages of the tool's pages and how a user's language is chosen (BCP 47 language tags, RFC 5646;
 * matching as in RFC 4647 "lookup", with the script taken into account for Chinese). Pure.
 */
export const SUPPORTED_LOCALES = ['en', 'es', 'fr', 'de', 'pt-BR', 'ar', 'zh-Hans'] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

const RTL_LANGUAGES: ReadonlySet<Locale> = new Set(['ar']);

export function directionOf(locale: Locale): 'ltr' | 'rtl' {
  return RTL_LANGUAGES.has(locale) ? 'rtl' : 'ltr';
}

export function isLocale(value: unknown): value is Locale {
  return SUPPORTED_LOCALES.some((locale) => locale === value);
}

/**
 * The supported locale one language tag asks for, or undefined when none fits.
 * - Any region of a language we have matches it: es-MX → es, fr-CA → fr, de-AT → de, en-GB → en, ar-EG → ar.
 * - Portuguese of any region (pt, pt-PT, pt-AO) is served in Brazilian Portuguese, the only Portuguese we have.
 * - Chinese must match by script: zh, zh-CN, zh-SG and zh-Hans are Simplified; zh-TW, zh-HK, zh-MO and
 *   zh-Hant are Traditional and do not match (the next language the user accepts is tried instead).
 * - Moodle writes locales with an underscore (es_mx): read as a hyphen. Case does not matter.
 */
export function matchLocale(tag: string): Locale | undefined {
  // Browsers and LMSs send the same few tags again and again; resolving one (ICU) is what costs.
  if (matched.has(tag)) return matched.get(tag);
  const match = resolveLocale(tag);
  if (tag.length > 64) return match;
  if (matched.size >= MAX_MATCHED_TAGS) matched.clear();
  matched.set(tag, match);
  return match;
}

const MAX_MATCHED_TAGS = 500;
const matched = new Map<string, Locale | undefined>();

function resolveLocale(tag: string): Locale | undefined {
  const cleaned = tag.trim().replaceAll('_', '-');
  if (cleaned === '' || cleaned === '*') return undefined;
  let parsed: Intl.Locale;
  try {
    parsed = new Intl.Locale(cleaned).maximize();
  } catch {
    return undefined;
  }
  switch (parsed.language) {
    case 'en':
    case 'es':
    case 'fr':
    case 'de':
    case 'ar':
      return parsed.language;
    case 'pt':
      return 'pt-BR';
    case 'zh':
      return parsed.script === 'Hans' ? 'zh-Hans' : undefined;
    default:
      return undefined;
  }
}

/** The first candidate that matches a supported locale, else English. Candidates are single tags, in order. */
export function negotiateLocale(candidates: readonly (string | undefined)[]): Locale {
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    const match = matchLocale(candidate);
    if (match) return match;
  }
  return DEFAULT_LOCALE;
}

/**
 * The tags of an Accept-Language header (RFC 9110 §12.5.4), most preferred first: ordered by q-value, ties
 * in header order; tags with q=0 ("not acceptable") and malformed entries are dropped. `*` stays in the list
 * (it matches nothing, so the default language answers when nothing before it matches).
 */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  const entries: { tag: string; q: number; index: number }[] = [];
  for (const [index, part] of header.split(',').slice(0, MAX_ACCEPT_LANGUAGE_ENTRIES).entries()) {
    const [rawTag, ...params] = part.split(';');
    const tag = (rawTag ?? '').trim();
    if (!/^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/.test(tag)) continue;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (match) q = Number(match[1]);
    }
    if (q > 0 && q <= 1) entries.push({ tag, q, index });
  }
  return entries.sort((a, b) => b.q - a.q || a.index - b.index).map((entry) => entry.tag);
}

/** A header longer than this is cut: nobody accepts fifty languages, and the header is attacker-controlled. */
const MAX_ACCEPT_LANGUAGE_ENTRIES = 50;

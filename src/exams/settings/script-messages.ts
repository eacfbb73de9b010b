import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { LOCALES_DIR } from '../../i18n/catalogs.js';

/**
 * The settings page's script gets its sentences as data: the `settings:script.*` messages of the reader's
 * language as ICU templates (the script fills in `{name}` arguments and plural branches with
 * Intl.PluralRules), and the language's quotation marks (CLDR delimiters) for the setting names it quotes.
 */
const QUOTES: Readonly<Record<string, readonly [string, string]>> = {
  en: ['“', '”'],
  es: ['«', '»'],
  fr: ['«\u00a0', '\u00a0»'],
  de: ['„', '“'],
  'pt-BR': ['“', '”'],
  ar: ['«', '»'],
  'zh-Hans': ['“', '”'],
};

const ENGLISH_QUOTES = ['“', '”'] as const;

export interface ScriptMessages {
  locale: string;
  quotes: readonly [string, string];
  /** Between two sentences of one status line: none in Chinese. */
  sentenceSeparator: string;
  messages: Readonly<Record<string, string>>;
}

const cache = new Map<string, ScriptMessages>();
/** The part of a locale's settings catalog the form's script needs. */
const scriptCatalogSchema = z.object({ script: z.record(z.string(), z.string()).optional() });

function load(locale: string): Readonly<Record<string, string>> | undefined {
  if (!/^[a-zA-Z-]+$/.test(locale)) return undefined;
  try {
    const catalog = scriptCatalogSchema.safeParse(JSON.parse(readFileSync(join(LOCALES_DIR, locale, 'settings.json'), 'utf8')));
    return catalog.success ? catalog.data.script : undefined;
  } catch {
    return undefined;
  }
}

/** The script's templates in this locale (English for a locale without a settings catalog). */
export function scriptMessages(locale: string): ScriptMessages {
  const cached = cache.get(locale);
  if (cached) return cached;
  const own = load(locale);
  const result: ScriptMessages = own
    ? { locale, quotes: QUOTES[locale] ?? ENGLISH_QUOTES, sentenceSeparator: locale.startsWith('zh') ? '' : ' ', messages: own }
    : { locale: 'en', quotes: ENGLISH_QUOTES, sentenceSeparator: ' ', messages: load('en') ?? {} };
  cache.set(locale, result);
  return result;
}

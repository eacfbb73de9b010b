import i18next, { type i18n as I18n } from 'i18next';
import ICU from 'i18next-icu';
import { loadCatalogs, type Catalogs } from './catalogs.js';
import { DEFAULT_LOCALE, directionOf, SUPPORTED_LOCALES, type Locale } from './locales.js';

/** Values of an ICU message's arguments. */
export type MessageValues = Record<string, string | number | Date | boolean | null | undefined>;

export interface DateTimeOptions {
  /** An IANA time zone (the course's, when the LMS sends one); the server's when absent or unknown. */
  timeZone?: string;
  dateStyle?: Intl.DateTimeFormatOptions['dateStyle'];
  timeStyle?: Intl.DateTimeFormatOptions['timeStyle'];
  /** With a weekday, the date is written out (weekday, day, month, year, time) instead of by style. */
  weekday?: Intl.DateTimeFormatOptions['weekday'];
}

export interface Translator {
  readonly locale: Locale;
  readonly dir: 'ltr' | 'rtl';
  /** A message by `'<namespace>:<dotted.path>'`, its ICU arguments filled in; English when the locale lacks it. */
  t(key: string, values?: MessageValues): string;
  formatDateTime(date: Date | number, options?: DateTimeOptions): string;
  formatNumber(value: number, options?: Intl.NumberFormatOptions): string;
  formatList(items: readonly string[], options?: Intl.ListFormatOptions): string;
}

/** Builds the i18next instance over loaded catalogs: synchronous, ICU MessageFormat, English fallback. */
export function createI18n(catalogs: Catalogs): I18n {
  const instance = i18next.createInstance();
  instance.use(ICU).init({
    resources: catalogs,
    ns: Object.keys(catalogs[DEFAULT_LOCALE]),
    defaultNS: 'common',
    lng: DEFAULT_LOCALE,
    fallbackLng: DEFAULT_LOCALE,
    supportedLngs: [...SUPPORTED_LOCALES],
    load: 'currentOnly',
    initAsync: false,
    // EJS escapes what pages print; ICU fills the arguments.
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
  });
  return instance;
}

/** Messages without arguments kept per translator; the keys come from code and catalogs, this bounds a surprise. */
const MAX_PLAIN_MESSAGES = 4096;

export function createTranslator(instance: I18n, locale: Locale): Translator {
  const fixed = instance.getFixedT(locale);
  const dateFormats = new Map<string, Intl.DateTimeFormat>();
  const numbers = new Intl.NumberFormat(locale);
  // The catalogs never change while the process runs: a message without arguments is looked up and formatted once.
  const plain = new Map<string, string>();
  return {
    locale,
    dir: directionOf(locale),
    t(key, values) {
      if (values !== undefined) return fixed(key, values);
      let message = plain.get(key);
      if (message === undefined) {
        message = fixed(key, {});
        if (plain.size >= MAX_PLAIN_MESSAGES) plain.clear();
        plain.set(key, message);
      }
      return message;
    },
    formatDateTime(date, options = {}) {
      const cacheKey = `${options.timeZone ?? ''}|${options.dateStyle ?? ''}|${options.timeStyle ?? ''}|${options.weekday ?? ''}`;
      let format = dateFormats.get(cacheKey);
      if (!format) {
        format = dateTimeFormat(locale, options);
        dateFormats.set(cacheKey, format);
      }
      return format.format(date);
    },
    formatNumber: (value, options) => (options ? new Intl.NumberFormat(locale, options) : numbers).format(value),
    formatList: (items, options) => new Intl.ListFormat(locale, { style: 'long', type: 'conjunction', ...options }).format(items),
  };
}

function dateTimeFormat(locale: Locale, options: DateTimeOptions): Intl.DateTimeFormat {
  const shape: Intl.DateTimeFormatOptions = options.weekday
    ? { weekday: options.weekday, day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit' }
    : { dateStyle: options.dateStyle ?? 'medium', timeStyle: options.timeStyle ?? 'short' };
  if (options.timeZone) {
    try {
      return new Intl.DateTimeFormat(locale, { ...shape, timeZone: options.timeZone });
    } catch {
      // An unknown zone name from the LMS: the server's zone rather than no date at all.
    }
  }
  return new Intl.DateTimeFormat(locale, shape);
}

let shared: { instance: I18n; translators: Map<Locale, Translator> } | undefined;

/**
 * Loads the catalogs of `locales/` (once per process; call at start-up to fail fast on a broken catalog).
 * The catalogs are read-only files shipped with the code, so one copy serves every request.
 */
export function initI18n(catalogs: Catalogs = loadCatalogs()): NonNullable<typeof shared> {
  shared = { instance: createI18n(catalogs), translators: new Map() };
  return shared;
}

/** The translator of a locale, built once. */
export function translator(locale: Locale): Translator {
  const state = shared ?? initI18n();
  let found = state.translators.get(locale);
  if (!found) {
    found = createTranslator(state.instance, locale);
    state.translators.set(locale, found);
  }
  return found;
}

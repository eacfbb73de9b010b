export { DEFAULT_LOCALE, SUPPORTED_LOCALES, directionOf, isLocale, matchLocale, negotiateLocale, parseAcceptLanguage, type Locale } from './locales.js';
export { initI18n, translator, type DateTimeOptions, type MessageValues, type Translator } from './translator.js';
export { sentences, wording, type Wording } from './wording.js';

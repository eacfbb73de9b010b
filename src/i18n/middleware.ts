import type { Request, RequestHandler, Response } from 'express';
import { negotiateLocale, parseAcceptLanguage, type Locale } from './locales.js';
import { translator, type Translator } from './translator.js';

/** What every view gets: `t`, the translator as `i18n`, `locale` and `dir` (for `<html lang dir>`). */
export interface I18nLocals {
  t: Translator['t'];
  i18n: Translator;
  locale: Locale;
  dir: 'ltr' | 'rtl';
}

/** Sets the page language of a response: the first of `preferred` that we have, then Accept-Language, then English. */
export function useLocale(req: Request, res: Response, preferred: readonly (string | undefined)[] = []): Translator {
  const chosen = translator(negotiateLocale([...preferred, ...parseAcceptLanguage(req.get('accept-language'))]));
  const locals: I18nLocals = { t: chosen.t, i18n: chosen, locale: chosen.locale, dir: chosen.dir };
  Object.assign(res.locals, locals);
  // Caches must keep one copy per language of pages chosen by Accept-Language.
  res.vary('Accept-Language');
  return chosen;
}

/** The translator a middleware already chose for this response, if one did. */
export function chosenTranslator(res: Response): Translator | undefined {
  const locals: Partial<I18nLocals> = res.locals;
  return locals.i18n;
}

/** The translator already chosen for this response, or the one Accept-Language asks for. */
export function translatorOf(req: Request, res: Response): Translator {
  return chosenTranslator(res) ?? useLocale(req, res);
}

/** Every request: the language from Accept-Language (an LTI session's pages override it with the launch's). */
export function i18nMiddleware(): RequestHandler {
  return (req, res, next) => {
    useLocale(req, res);
    next();
  };
}

/**
 * Pages of an LTI session: the launch's `launch_presentation.locale` first, then Accept-Language. A request
 * whose launch cannot be read keeps Accept-Language's choice (its route answers the missing session).
 */
export function launchLocale(localeOfLaunch: (res: Response) => Promise<string | undefined>): RequestHandler {
  return (req, res, next) => {
    localeOfLaunch(res).then(
      (locale) => {
        if (locale) useLocale(req, res, [locale]);
        next();
      },
      () => next(),
    );
  };
}

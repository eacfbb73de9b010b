import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createI18n, createTranslator } from '../../../src/i18n/translator.js';
import type { Catalogs } from '../../../src/i18n/catalogs.js';
import { translator } from '../../../src/i18n/index.js';

const tree = (messages: Record<string, string>) => ({ test: messages });
const catalogs: Catalogs = {
  en: tree({ changed: '{count, plural, one {# setting changed} other {# settings changed}}', hello: 'Hello {name}', onlyEnglish: 'Only in English' }),
  es: tree({ changed: '{count, plural, one {# ajuste cambiado} other {# ajustes cambiados}}', hello: 'Hola, {name}' }),
  fr: tree({}),
  de: tree({}),
  'pt-BR': tree({}),
  ar: tree({ changed: '{count, plural, zero {لم يتغير أي إعداد} one {تغيّر إعداد واحد} two {تغيّر إعدادان} few {تغيّرت # إعدادات} many {تغيّر # إعدادًا} other {تغيّر # إعداد}}' }),
  'zh-Hans': tree({}),
};

describe('translator', () => {
  const i18n = createI18n(catalogs);

  it('fills ICU arguments and chooses plural forms by the language rules', () => {
    const es = createTranslator(i18n, 'es');
    assert.equal(es.t('test:hello', { name: 'Ana' }), 'Hola, Ana');
    assert.equal(es.t('test:changed', { count: 1 }), '1 ajuste cambiado');
    assert.equal(es.t('test:changed', { count: 3 }), '3 ajustes cambiados');
    const ar = createTranslator(i18n, 'ar');
    assert.equal(ar.t('test:changed', { count: 0 }), 'لم يتغير أي إعداد');
    assert.equal(ar.t('test:changed', { count: 2 }), 'تغيّر إعدادان');
    assert.match(ar.t('test:changed', { count: 5 }), /^تغيّرت .+ إعدادات$/);
    assert.equal(ar.dir, 'rtl');
    assert.equal(es.dir, 'ltr');
  });

  it('falls back to English for a message a language lacks, and does not HTML-escape (the views do)', () => {
    const es = createTranslator(i18n, 'es');
    assert.equal(es.t('test:onlyEnglish'), 'Only in English');
    assert.equal(es.t('test:hello', { name: '<b>' }), 'Hola, <b>');
  });

  it('formats dates in the locale and the given time zone; an unknown zone falls back rather than failing', () => {
    const instant = new Date('2026-03-05T14:30:00Z');
    assert.equal(translator('de').formatDateTime(instant, { timeZone: 'Europe/Berlin', dateStyle: 'long', timeStyle: 'short' }), '5. März 2026 um 15:30');
    assert.equal(translator('en').formatDateTime(instant, { timeZone: 'America/Chicago', dateStyle: 'medium', timeStyle: 'short' }), 'Mar 5, 2026, 8:30 AM');
    assert.match(translator('fr').formatDateTime(instant, { timeZone: 'Europe/Paris', weekday: 'long' }), /^jeudi 5 mars 2026/);
    assert.match(translator('zh-Hans').formatDateTime(instant, { timeZone: 'Asia/Shanghai', dateStyle: 'long', timeStyle: 'short' }), /2026年3月5日 22:30/);
    assert.ok(translator('es').formatDateTime(instant, { timeZone: 'Not/AZone' }).length > 0);
  });

  it('formats numbers and lists in the locale', () => {
    assert.equal(translator('de').formatNumber(1234.5), '1.234,5');
    assert.equal(translator('fr').formatList(['a', 'b', 'c']), 'a, b et c');
    assert.equal(translator('es').formatList(['a', 'b']), 'a y b');
  });

  it('reads the real catalogs: a key by namespace and path', () => {
    assert.equal(translator('fr').t('common:error.tryAgain'), 'Réessayer');
    assert.equal(translator('ar').t('common:languages.ar'), 'العربية');
  });
});

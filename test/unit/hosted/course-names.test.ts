// Why names cannot be shown, as a reason code each page words in its reader's language.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCourseNames, type NamesProblem } from '../../../src/hosted/course-names.js';
import { RosterError, type RosterBody } from '../../../src/hosted/roster.js';
import type { Exam } from '../../../src/exams/store.js';
import { translator } from '../../../src/i18n/index.js';
import { createLogger } from '../../../src/logger.js';
import { SUPPORTED_LOCALES } from '../../../src/i18n/locales.js';

const exam = { id: 'exam-1' } as Exam;
const body = (pairs: Array<[string, string]>): RosterBody => ({ json: JSON.stringify(pairs), staffNames: [], members: pairs.length, unnamed: pairs.filter(([, n]) => n === '').length, fetchedAt: new Date() });
const namesFrom = (get: () => Promise<RosterBody>, timeoutMs = 1000) => createCourseNames({ roster: { get }, sectionIdOf: () => 'section-1', logger: createLogger('silent'), timeoutMs });

describe('course names for pages', () => {
  it('maps ids to names, leaving unnamed members out', async () => {
    const result = await namesFrom(async () => body([['a', 'Ana'], ['b', '']]))(exam);
    assert.deepEqual(result.status, { ok: true });
    assert.deepEqual([...(result.names ?? [])], [['a', 'Ana']]);
  });

  const cases: Array<[string, () => Promise<RosterBody>, NamesProblem]> = [
    ['a course the tool has not seen', () => Promise.reject(new RosterError('unknown_course', 'x')), 'unknown_course'],
    ['no Names and Roles', () => Promise.reject(new RosterError('no_names_and_roles', 'x')), 'no_names_and_roles'],
    ['a failed fetch', () => Promise.reject(new Error('socket hang up')), 'roster_unavailable'],
    ['a roster too slow for the page', () => new Promise<RosterBody>(() => {}), 'roster_timeout'],
    ['members listed without names', async () => body([['a', ''], ['b', '']]), 'names_hidden'],
  ];
  for (const [what, get, reason] of cases) {
    it(`${what}: '${reason}', worded in every language`, async () => {
      const result = await namesFrom(get, 50)(exam);
      assert.deepEqual(result.status, { ok: false, reason });
      const english = translator('en').t(`hub:names.${reason}`);
      assert.match(english, /^Names are not shown: /);
      for (const locale of SUPPORTED_LOCALES.filter((l) => l !== 'en')) assert.notEqual(translator(locale).t(`hub:names.${reason}`), english, `${locale} words '${reason}'`);
    });
  }
});

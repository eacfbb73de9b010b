// Every instructor page in each language: no text the page shows (text, titles, labels) is an English catalogue
// message whose translation differs; addresses and patterns are isolated left to right.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launchAs } from '../../helpers/launches.js';
import { loadCatalog, type Catalog } from '../../helpers/catalogs.js';
import { decodeHtml } from '../../../src/sandbox/demo-lms/forms.js';
import { createAccommodationStore } from '../../../src/exams/accommodations/store.js';
import { invalidateReadCaches } from '../../../src/db/read-cache.js';
import { createSettingsChangeLog } from '../../../src/exams/settings/changes.js';
import { demoExam, derived } from '../../helpers/launches.js';

const NAMESPACES = readdirSync(new URL('../../../locales/en/', import.meta.url)).map((file) => file.replace(/\.json$/, ''));

function leaves(catalog: Catalog, prefix = ''): Array<[string, string]> {
  return Object.entries(catalog).flatMap(([key, value]) => (typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : leaves(value, `${prefix}${key}.`)));
}

/** An ICU message as a pattern over a whole text: literal parts kept, every argument or plural any text. */
function messagePattern(message: string): RegExp | undefined {
  const parts: string[] = [];
  let depth = 0;
  let literal = '';
  for (const char of message) {
    if (char === '{') {
      if (depth === 0) {
        parts.push(literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), '.+?');
        literal = '';
      }
      depth += 1;
    } else if (char === '}') depth -= 1;
    else if (depth === 0) literal += char;
  }
  parts.push(literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const letters = parts.filter((part) => part !== '.+?').join('');
  if (letters.replace(/[^A-Za-z]/g, '').length < 4) return undefined;
  return new RegExp(`^${parts.join('').trim()}$`, 's');
}

/** Every plain message of a locale: a text equal to one is that language's own word ("Actions" in French). */
function ownTexts(locale: string): Set<string> {
  return new Set(NAMESPACES.flatMap((namespace) => leaves(loadCatalog(locale, namespace)).map(([, text]) => text)));
}

/** English messages whose translation in `locale` differs: what a page in that language must not show. */
function englishLeftovers(locale: string): Array<{ key: string; pattern: RegExp }> {
  return NAMESPACES.flatMap((namespace) => {
    const translated = new Map(leaves(loadCatalog(locale, namespace)));
    return leaves(loadCatalog('en', namespace)).flatMap(([key, english]) => {
      const pattern = english !== translated.get(key) ? messagePattern(english) : undefined;
      return pattern ? [{ key: `${namespace}:${key}`, pattern }] : [];
    });
  });
}

/** What a reader meets on a page: its text (without scripts, styles and left-to-right islands) and its titles and labels. */
function shownTexts(html: string): string[] {
  const body = html
    .replace(/<script\b[\s\S]*?<\/script>/gi, ' ')
    .replace(/<style\b[\s\S]*?<\/style>/gi, ' ')
    .replace(/<(code|bdi)\b[^>]*>[\s\S]*?<\/\1>/gi, '\u0000')
    .replace(/<select id="f-availability-time_zone"[\s\S]*?<\/select>/gi, ' ');
  const attributes = [...body.matchAll(/\s(?:title|aria-label|data-label|placeholder|alt)="([^"]*)"/g)].map((m) => m[1] ?? '');
  const texts = body.replace(/<[^>]+>/g, '\u0000').split('\u0000');
  return [...texts, ...attributes].map((text) => decodeHtml(text).replace(/\s+/g, ' ').trim()).filter((text) => /[A-Za-z]{2}/.test(text));
}

describe('instructor pages in every language: no English catalogue text left', () => {
  let app: TestApp;
  let examId: string;
  before(async () => {
    app = await startTestApp();
    examId = (await demoExam(app)).id;
    // One accommodation, so the hub lists one and the editor has a student.
    const ids = await derived(app);
    const student = ids.userId(app.tool.sandbox!.demoLms.registration.issuer, '5');
    await createAccommodationStore(app.db).set(examId, student, { break_settings: { number: 2, duration: 10 } }, { userId: 'test' });
    // A change of the quiz's address and pattern, so the settings page's history shows an address and a pattern.
    await createSettingsChangeLog(app.db).record(examId, {
      source: 'import',
      changes: [
        { path: 'launch_url', before: 'https://old-lms.example.edu/mod/quiz/view.php?id=1', after: 'https://lms.example.edu/mod/quiz/view.php?id=1' },
        { path: 'exam_take', before: '^https://old-lms\\.example\\.edu/mod/quiz/attempt\\.php.*', after: '^https://lms\\.example\\.edu/mod/quiz/attempt\\.php.*' },
      ],
    });
    invalidateReadCaches();
  });
  after(async () => {
    await app.close();
  });

  async function pagesIn(locale: string): Promise<Array<[string, string]>> {
    const { agent, response, ltik } = await launchAs(app, { user: 'instructor', flavor: 'canvas', presentation: 'window', locale });
    assert.equal(response.status, 200, response.text.slice(0, 300));
    const hub = response.text;
    const settings = await agent.post(`/lti/exams/${examId}/settings`).type('form').send({ ltik });
    const student = /name="student" value="([^"]+)"/.exec(hub)?.[1] ?? '';
    const editor = await agent.post(`/lti/hub/${examId}/accommodations/edit`).type('form').send({ ltik, student });
    const resume = await supertest(app.baseUrl).get(`/lti/hub/${examId}`).set('Accept-Language', locale);
    const picker = (await launchAs(app, { user: 'instructor', flavor: 'canvas', kind: 'deep-linking', presentation: 'window', locale })).response;
    const examList = (await launchAs(app, { user: 'student', flavor: 'canvas', kind: 'course', presentation: 'window', locale })).response;
    for (const [name, page] of [['settings', settings], ['editor', editor], ['resume', resume], ['picker', picker], ['exam list', examList]] as const) assert.equal(page.status, 200, `${name}: ${page.text.slice(0, 300)}`);
    assert.match(picker.text, /id="dl-quiz_url"/, 'the deep-linking picker');
    assert.match(examList.text, /action="\/lti\/course\/exams\//, 'the course exam list');
    return [
      ['hub', hub],
      ['settings', settings.text],
      ['accommodation editor', editor.text],
      ['reopening page', resume.text],
      ['deep-linking picker', picker.text],
      ['course exam list', examList.text],
    ];
  }

  for (const locale of ['es', 'fr', 'de', 'pt-BR', 'ar', 'zh-Hans']) {
    it(`${locale}: hub, settings, accommodation editor and reopening page`, async () => {
      const leftovers = englishLeftovers(locale);
      const own = ownTexts(locale);
      const found: string[] = [];
      for (const [name, html] of await pagesIn(locale)) {
        assert.match(html, new RegExp(`<html lang="${locale}"`), `${name} is in ${locale}`);
        for (const text of shownTexts(html).filter((shown) => !own.has(shown))) {
          const hit = leftovers.find(({ pattern }) => pattern.test(text));
          if (hit) found.push(`${name}: "${text}" (${hit.key})`);
        }
      }
      assert.deepEqual([...new Set(found)], [], `English left in ${locale}`);
    });
  }

  it('the check finds English: the same pages in English hold many messages Spanish translates', async () => {
    const leftovers = englishLeftovers('es');
    const hits = new Set<string>();
    for (const [, html] of await pagesIn('en')) {
      for (const text of shownTexts(html)) for (const { key, pattern } of leftovers) if (pattern.test(text)) hits.add(key);
    }
    assert.ok(hits.size > 100, `English messages found on the English pages: ${hits.size}`);
    for (const key of ['hub:summary.quiz', 'hub:results.heading', 'settings:page.save', 'accommodations:editor.save', 'student:continue.resumeTitle']) assert.ok(hits.has(key), key);
  });

  it('in Arabic, addresses, patterns and role URIs read left to right', async () => {
    const pages = await pagesIn('ar');
    const hub = pages[0]?.[1] ?? '';
    // The settings page's history: each address or pattern it names is an LTR island, the words around it are not.
    const history = /<ul id="history-list">([\s\S]*?)<\/section>/.exec(pages[1]?.[1] ?? '')?.[1] ?? '';
    const lines = [...history.matchAll(/<li>((?:(?!<\/?li>)[\s\S])*)<\/li>/g)].map((m) => m[1] ?? '');
    const named = lines.filter((line) => /https:\/\/|\\\./.test(decodeHtml(line)));
    assert.ok(named.length >= 2, `the history names the address and the pattern: ${history.slice(0, 800)}`);
    for (const line of named) {
      const outside = decodeHtml(line.replace(/<bdi dir="ltr">[^<]*<\/bdi>/g, ''));
      assert.doesNotMatch(outside, /https:\/\/|\\\./, `outside an LTR island: ${line}`);
      assert.equal(line.match(/<bdi dir="ltr">/g)?.length, 2, `before and after, each an island: ${line}`);
    }
    // The deep-linking picker's example address, inside its Arabic sentence.
    const pickerHelp = /<p class="help" id="dl-quiz_url-help">([\s\S]*?)<\/p>/.exec(pages[4]?.[1] ?? '')?.[1] ?? '';
    assert.match(pickerHelp, /<bdi class="example" dir="ltr">https:\/\/moodle\.example\.edu\/mod\/quiz\/view\.php\?id=42<\/bdi>/, `the picker's example: ${pickerHelp}`);
    assert.doesNotMatch(decodeHtml(pickerHelp.replace(/<bdi[^>]*>[^<]*<\/bdi>/g, '')), /https:\/\//, 'no address outside the island');
    const quiz = /<dd><bdi dir="ltr">(https?:\/\/[^<]+)<\/bdi><\/dd>/.exec(hub);
    assert.ok(quiz, 'the quiz address is an LTR island');
    for (const code of hub.matchAll(/<code\b([^>]*)>([^<]*)<\/code>/g)) {
      if (/[:/#]/.test(code[2] ?? '')) assert.match(code[1] ?? '', /dir="ltr"/, `LTR: ${code[2]}`);
    }
  });
});

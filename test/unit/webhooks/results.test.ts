import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Attempt } from '../../../src/exams/attempts.js';
import { readSuspicionResult, submissionInWords } from '../../../src/webhooks/delivery.js';
import { neutraliseFormula, resultsCsv } from '../../../src/webhooks/csv.js';
import { buildExamResults, resultsQueryOf } from '../../../src/webhooks/results.js';
import type { DeliveryRecord } from '../../../src/webhooks/store.js';

const attempt = (id: string, userId: string, startedAt: string, isTest = false, practice = false): Attempt => ({ id, examId: 'e', userId, status: 'submitted', isTest, practice, startedAt: new Date(startedAt) });
const delivery = (attemptId: string, suspicion: number, flags: Record<string, number> = {}, submittedAt?: string): DeliveryRecord => ({
  id: `d-${attemptId}-${suspicion}`,
  subscriptionId: 's',
  receivedAt: new Date('2026-01-01T10:00:00Z'),
  verifiedBy: 'api_key',
  version: '3',
  suspicion,
  flags,
  submissionCode: 1,
  submittedAt: submittedAt ? new Date(submittedAt) : undefined,
  problems: [],
  attemptId,
});

describe('exam results', () => {
  const attempts = [attempt('a1', 'u1', '2026-01-01T09:00:00Z'), attempt('a2', 'u2', '2026-01-01T09:30:00Z', true), attempt('a3', 'u3', '2026-01-01T08:00:00Z', false, true)];
  // Newest first, as the store answers: a1's later recalculation (70) before its earlier one (20).
  const deliveries = [delivery('a1', 70, { unfocus: 12, speaking: 0, ai: 30 }, '2026-01-01T10:00:00Z'), delivery('a1', 20, {}, '2026-01-01T09:50:00Z'), delivery('a3', 90)];
  const names = new Map([['u1', 'Ada'], ['u3', '=HYPERLINK("http://evil")']]);

  it('shows the newest result per attempt, non-zero flags highest first, names from the roster', () => {
    const results = buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'recent', tests: 'include' });
    assert.deepEqual(results.rows.map((r) => r.attempt.id), ['a2', 'a1', 'a3']);
    const a1 = results.rows[1]!;
    assert.equal(a1.name, 'Ada');
    assert.equal(a1.result?.suspicion, 70);
    assert.equal(a1.result?.count, 2);
    assert.deepEqual(a1.result?.flags.map((f) => [f.label, f.percent]), [['AI use', 30], ['Left the exam window', 12]]);
    assert.equal(results.rows[0]!.name, undefined);
    assert.deepEqual(results.totals, { attempts: 3, withResult: 2, shown: 3 });
  });

  it('sorts most suspicious first (attempts without a result last) and filters by minimum suspicion', () => {
    assert.deepEqual(buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'suspicion', tests: 'include' }).rows.map((r) => r.attempt.id), ['a3', 'a1', 'a2']);
    assert.deepEqual(buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'suspicion', minSuspicion: 75, tests: 'include' }).rows.map((r) => r.attempt.id), ['a3']);
    assert.deepEqual(resultsQueryOf({ sort: 'suspicion', min: '50' }), { sort: 'suspicion', minSuspicion: 50, tests: 'include' });
    assert.deepEqual(resultsQueryOf({ sort: 'x', min: '13' }), { sort: 'recent', minSuspicion: undefined, tests: 'include' });
  });

  it('writes CSV with names, outcome, suspicion and a column per flag, every formula neutralised', () => {
    const results = buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'recent', tests: 'include' });
    const csv = resultsCsv(results.rows);
    assert.ok(csv.startsWith('\uFEFF'));
    const records = parse(csv, { bom: true, columns: true }) as Record<string, string>[];
    assert.equal(records.length, 3);
    const evil = records.find((r) => r['Pseudonymous id'] === 'u3')!;
    assert.equal(evil.Name, `'=HYPERLINK("http://evil")`);
    assert.equal(evil['Suspicion (%)'], '90');
    assert.equal(evil['AI use (%)'], '0');
    const ada = records.find((r) => r.Name === 'Ada')!;
    assert.equal(ada['AI use (%)'], '30');
    assert.equal(ada['Left the exam window (%)'], '12');
    assert.equal(ada.Submission, 'Submitted');
    assert.equal(records.find((r) => r['Pseudonymous id'] === 'u2')!['Test student'], 'yes');
    assert.deepEqual(records.map((r) => r.Practice), ['no', 'no', 'yes'], 'practice attempts are marked');
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1']) assert.equal(neutraliseFormula(value), `'${value}`);
    assert.equal(neutraliseFormula('Ada'), 'Ada');
  });

  it('keeps formulas out of spreadsheets that split on ";" (German, French Excel): such values quoted, every part neutralised', () => {
    const name = "Eve;=cmd|' /C calc'!A0;x";
    assert.equal(neutraliseFormula(name), "Eve;'=cmd|' /C calc'!A0;x");
    assert.equal(neutraliseFormula('A; +1;@x'), "A; '+1;'@x");
    const rows = buildExamResults([attempt('a9', 'u9', '2026-01-01T09:00:00Z')], [], new Map([['u9', name]]), { ok: true }, { sort: 'recent', tests: 'include' }).rows;
    const csv = resultsCsv(rows);
    const line = csv.split('\r\n')[1]!;
    assert.ok(line.startsWith(`"Eve;'=cmd|' /C calc'!A0;x",`), line);
    // Split on ";" as those spreadsheets do (quotes respected): one cell, and no part starts a formula either way.
    for (const cell of line.split(';')) assert.doesNotMatch(cell.replace(/^"/, ''), /^[=+\-@]/);
  });

  it('keeps a name with a line break in one row: quoted, and the line after the break neutralised too', () => {
    for (const [name, written] of [
      ["Eve\n=cmd|' /C calc'!A0", `"Eve\n'=cmd|' /C calc'!A0"`],
      ['Eve\r@SUM(A1)', `"Eve\r'@SUM(A1)"`],
    ]) {
      const rows = buildExamResults([attempt('a8', 'u8', '2026-01-01T09:00:00Z')], [], new Map([['u8', name!]]), { ok: true }, { sort: 'recent', tests: 'include' }).rows;
      const csv = resultsCsv(rows);
      assert.ok(csv.split('\r\n')[1]!.startsWith(`${written},`), JSON.stringify(csv));
      // Spreadsheets end a row at a bare line break outside quotes: there is none.
      const outsideQuotes = csv.replace(/"(?:[^"]|"")*"/g, '""').replaceAll('\r\n', '');
      assert.doesNotMatch(outsideQuotes, /[\r\n]/, JSON.stringify(csv));
    }
  });

  it('gives each attempt one outcome: a result saying "Submitted" outranks an ungraceful end or an open attempt', () => {
    const ended: Attempt = { ...attempt('b1', 'v1', '2026-01-01T09:00:00Z'), status: 'ended' };
    const open: Attempt = { ...attempt('b2', 'v2', '2026-01-01T09:00:00Z'), status: 'started' };
    const abandoned: Attempt = { ...attempt('b3', 'v3', '2026-01-01T09:00:00Z'), status: 'abandoned' };
    const recordingEnded: DeliveryRecord = { ...delivery('b3', 10), submissionCode: 5 };
    const rows = buildExamResults([ended, open, abandoned], [delivery('b1', 10), delivery('b2', 10), recordingEnded], undefined, { ok: true }, { sort: 'recent', tests: 'include' }).rows;
    const outcome = (id: string) => rows.find((row) => row.attempt.id === id)?.outcome;
    assert.equal(outcome('b1'), 'submitted');
    assert.equal(outcome('b2'), 'submitted');
    assert.equal(outcome('b3'), 'abandoned', 'another code leaves the outcome as recorded');
    const csv = parse(resultsCsv(rows), { bom: true, columns: true }) as Record<string, string>[];
    assert.deepEqual(csv.map((r) => [r['Pseudonymous id'], r.Outcome, r.Submission]), [
      ['v1', 'Submitted', 'Submitted'],
      ['v2', 'Submitted', 'Submitted'],
      ['v3', 'Abandoned', 'Screen recording ended'],
    ]);
  });

  it('marks test attempts (the LMS said so, or the roster lists the candidate as staff) and filters them', () => {
    const staff = new Set(['u3']);
    const marks = (tests: 'include' | 'exclude' | 'only') =>
      buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'recent', tests }, staff).rows.map((r) => [r.attempt.id, r.test ?? '-']);
    assert.deepEqual(marks('include'), [['a2', 'lms'], ['a1', '-'], ['a3', 'staff']]);
    assert.deepEqual(marks('exclude'), [['a1', '-']]);
    assert.deepEqual(marks('only'), [['a2', 'lms'], ['a3', 'staff']]);
    assert.equal(resultsQueryOf({ tests: 'only' }).tests, 'only');
    assert.equal(resultsQueryOf({ tests: 'everything' }).tests, 'include');
    const csv = parse(resultsCsv(buildExamResults(attempts, deliveries, names, { ok: true }, { sort: 'recent', tests: 'include' }, staff).rows), { bom: true, columns: true }) as Record<string, string>[];
    assert.deepEqual(csv.map((r) => r['Test student']), ['yes', 'no', 'yes']);
  });

  it('reads submission codes in words', () => {
    assert.equal(submissionInWords(1, undefined), 'Submitted');
    assert.equal(submissionInWords(5, 'x'), 'Screen recording ended');
    assert.equal(submissionInWords(9, 'Proctor ended it'), 'Proctor ended it (code 9)');
    assert.equal(submissionInWords(9, undefined), 'Code 9');
    assert.equal(readSuspicionResult({ id: 1, attempt_id: 'a', suspicion: 5, user_id: 'u', flags: [{ name: 'ai', value: 3 }], submission_data: { date: 1767261600, code: 1 } }, '3').submittedAt?.toISOString(), '2026-01-01T10:00:00.000Z');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availabilityAt, formatForStudents, wallClock, zonedInstant } from '../../../src/exams/availability.js';

describe('availability: wall-clock times in a time zone, daylight-saving changes included', () => {
  const cases: { name: string; local: string; zone: string; utc?: string; reason?: string }[] = [
    { name: 'Berlin winter time (UTC+1)', local: '2026-01-13T09:00', zone: 'Europe/Berlin', utc: '2026-01-13T08:00:00.000Z' },
    { name: 'Berlin summer time (UTC+2)', local: '2026-07-14T09:00', zone: 'Europe/Berlin', utc: '2026-07-14T07:00:00.000Z' },
    { name: 'Berlin, last minute before the March change', local: '2026-03-29T01:59', zone: 'Europe/Berlin', utc: '2026-03-29T00:59:00.000Z' },
    { name: 'Berlin, 02:30 skipped on the last Sunday of March', local: '2026-03-29T02:30', zone: 'Europe/Berlin', reason: 'does-not-exist' },
    { name: 'Berlin, first minute after the March change', local: '2026-03-29T03:00', zone: 'Europe/Berlin', utc: '2026-03-29T01:00:00.000Z' },
    { name: 'Berlin, 02:30 twice on the last Sunday of October: the first', local: '2026-10-25T02:30', zone: 'Europe/Berlin', utc: '2026-10-25T00:30:00.000Z' },
    { name: 'Berlin, 03:00 after the October change', local: '2026-10-25T03:00', zone: 'Europe/Berlin', utc: '2026-10-25T02:00:00.000Z' },
    { name: 'New York, 02:30 skipped on the second Sunday of March', local: '2026-03-08T02:30', zone: 'America/New_York', reason: 'does-not-exist' },
    { name: 'New York, 01:30 twice in November: the first (EDT)', local: '2026-11-01T01:30', zone: 'America/New_York', utc: '2026-11-01T05:30:00.000Z' },
    { name: 'Kolkata, a half-hour offset', local: '2026-05-01T00:15', zone: 'Asia/Kolkata', utc: '2026-04-30T18:45:00.000Z' },
    { name: 'Auckland, midnight across the date line', local: '2026-01-01T00:00', zone: 'Pacific/Auckland', utc: '2025-12-31T11:00:00.000Z' },
    { name: 'UTC', local: '2026-02-28T23:59', zone: 'UTC', utc: '2026-02-28T23:59:00.000Z' },
    { name: 'a date that does not exist', local: '2026-02-30T09:00', zone: 'UTC', reason: 'malformed' },
    { name: 'not a date-time', local: '2026-02-03 09:00', zone: 'UTC', reason: 'malformed' },
    { name: 'an unknown time zone', local: '2026-02-03T09:00', zone: 'Mars/Olympus_Mons', reason: 'unknown-time-zone' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = zonedInstant(c.local, c.zone);
      if (c.utc) {
        assert.ok(result.ok, JSON.stringify(result));
        assert.equal(result.instant.toISOString(), c.utc);
        assert.equal(wallClock(result.instant, c.zone), c.local, 'reads back as entered');
      } else {
        assert.deepEqual(result, { ok: false, reason: c.reason });
      }
    });
  }

  const opensAt = new Date('2026-03-29T01:00:00Z');
  const closesAt = new Date('2026-03-29T03:00:00Z');
  const states: { now: string; expected: string }[] = [
    { now: '2026-03-29T00:59:59.999Z', expected: 'not-yet-open' },
    { now: '2026-03-29T01:00:00.000Z', expected: 'open' },
    { now: '2026-03-29T02:59:59.999Z', expected: 'open' },
    { now: '2026-03-29T03:00:00.000Z', expected: 'closed' },
  ];
  for (const s of states) {
    it(`opening 03:00 CEST, closing 05:00 CEST: ${s.now} is ${s.expected}`, () => {
      assert.equal(availabilityAt({ opensAt, closesAt }, new Date(s.now)), s.expected);
    });
  }
  it('no window: always open', () => {
    assert.equal(availabilityAt({}, new Date('2030-01-01T00:00:00Z')), 'open');
  });

  it('shown in the reader\'s locale, in the exam\'s time zone', () => {
    const instant = new Date('2026-03-31T07:00:00Z');
    assert.match(formatForStudents(instant, 'en-GB', 'Europe/Berlin'), /^Tuesday 31 March (at )?09:00 CEST$/);
    assert.match(formatForStudents(instant, 'de-DE', 'Europe/Berlin'), /^Dienstag, 31\. März (um )?09:00 MESZ$/);
  });
});

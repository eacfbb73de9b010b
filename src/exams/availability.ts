/**
 * Opening and closing times of an exam: entered as a wall-clock date-time in a time zone (the course's where
 * the LMS sends one, else the institution's, else UTC), stored as instants, and shown back in the reader's
 * locale. Pure; the time-zone rules are the runtime's (Intl, IANA database).
 */

export type Availability = 'not-yet-open' | 'open' | 'closed';

export interface AvailabilityWindow {
  opensAt?: Date;
  closesAt?: Date;
}

/** Open from `opensAt` (included) until `closesAt` (excluded); either end may be absent. */
export function availabilityAt(window: AvailabilityWindow, now: Date): Availability {
  if (window.opensAt && now.getTime() < window.opensAt.getTime()) return 'not-yet-open';
  if (window.closesAt && now.getTime() >= window.closesAt.getTime()) return 'closed';
  return 'open';
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** True for an IANA time-zone name the runtime knows (e.g. Europe/Berlin). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock reading `YYYY-MM-DDTHH:mm` of an instant in a time zone. */
export function wallClock(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

export type ZonedResult = { ok: true; instant: Date } | { ok: false; reason: 'malformed' | 'unknown-time-zone' | 'does-not-exist' };

/**
 * The instant a wall-clock date-time names in a time zone. A time skipped by a daylight-saving change (02:30 on
 * the last Sunday of March in Europe/Berlin) does not exist and is refused; a time that happens twice (02:30 on
 * the last Sunday of October) is its first occurrence, so an exam never opens an hour late.
 */
export function zonedInstant(local: string, timeZone: string): ZonedResult {
  const match = LOCAL.exec(local);
  if (!match) return { ok: false, reason: 'malformed' };
  if (!isTimeZone(timeZone)) return { ok: false, reason: 'unknown-time-zone' };
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  if (new Date(asUtc).toISOString().slice(0, 16) !== local) return { ok: false, reason: 'malformed' };
  // Offsets in force a day either side cover every real change; keep the candidates that read back as `local`.
  const offsets = [-1, 0, 1].map((days) => offsetMinutes(new Date(asUtc + days * 86_400_000), timeZone));
  const candidates = [...new Set(offsets)]
    .map((offset) => asUtc - offset * 60_000)
    .filter((instant) => wallClock(new Date(instant), timeZone) === local)
    .sort((a, b) => a - b);
  const first = candidates[0];
  return first === undefined ? { ok: false, reason: 'does-not-exist' } : { ok: true, instant: new Date(first) };
}

/** Minutes the time zone is ahead of UTC at an instant. */
function offsetMinutes(instant: Date, timeZone: string): number {
  const reading = wallClock(instant, timeZone);
  const asUtc = Date.parse(`${reading}:00Z`);
  return Math.round((asUtc - Math.floor(instant.getTime() / 60_000) * 60_000) / 60_000);
}

/** "Tuesday 09:00"-style text in the reader's locale, read in the exam's time zone. */
export function formatForStudents(instant: Date, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone, weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(instant);
}

/**
 * The time zone for a course's dates: the user's, when the LMS sends it as the custom parameter `timezone`
 * (Canvas and Moodle substitute `$Person.address.timezone`; see docs/i18n.md), else UTC.
 */
export function timeZoneOf(launch: { custom: Readonly<Record<string, string | undefined>> }): string {
  const zone = launch.custom.timezone?.trim();
  return zone && isTimeZone(zone) ? zone : 'UTC';
}

/** Availability as the settings form and API read and write it: wall-clock times in one time zone. */
export interface AvailabilityInput {
  /** `YYYY-MM-DDTHH:mm` in `time_zone`, or null: open at once. */
  opens_at: string | null;
  /** `YYYY-MM-DDTHH:mm` in `time_zone`, or null: no end. */
  closes_at: string | null;
  time_zone: string;
  practice: boolean;
}

export interface StoredAvailability {
  opensAt?: Date;
  closesAt?: Date;
  timeZone?: string;
  practice: boolean;
}

/** What the form shows: the stored instants read in their time zone (or `defaultZone` when none is stored). */
export function availabilityInput(stored: StoredAvailability, defaultZone: string): AvailabilityInput {
  const zone = stored.timeZone ?? defaultZone;
  return {
    opens_at: stored.opensAt ? wallClock(stored.opensAt, zone) : null,
    closes_at: stored.closesAt ? wallClock(stored.closesAt, zone) : null,
    time_zone: zone,
    practice: stored.practice,
  };
}

export type AvailabilityRule = 'availability_time' | 'unknown_time_zone' | 'time_does_not_exist' | 'closes_before_opens' | 'type' | 'unknown_field';
export interface AvailabilityViolation {
  path: string;
  rule: AvailabilityRule;
  params?: Record<string, string>;
}

const INPUT_KEYS = ['opens_at', 'closes_at', 'time_zone', 'practice'];

/** Checks the form's availability and turns its wall-clock times into instants. */
export function parseAvailability(input: unknown): { ok: true; value: StoredAvailability } | { ok: false; violations: AvailabilityViolation[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, violations: [{ path: 'availability', rule: 'type' }] };
  const fields = input as Record<string, unknown>;
  const violations: AvailabilityViolation[] = Object.keys(fields)
    .filter((key) => !INPUT_KEYS.includes(key))
    .map((key) => ({ path: `availability.${key}`, rule: 'unknown_field' }));
  const zone = fields.time_zone;
  const zoneOk = typeof zone === 'string' && isTimeZone(zone);
  if (!zoneOk) violations.push({ path: 'availability.time_zone', rule: 'unknown_time_zone' });
  if (fields.practice !== undefined && typeof fields.practice !== 'boolean') violations.push({ path: 'availability.practice', rule: 'type' });
  const instants: Partial<Record<'opens_at' | 'closes_at', Date>> = {};
  for (const key of ['opens_at', 'closes_at'] as const) {
    const value = fields[key];
    if (value === undefined || value === null || value === '') continue;
    const path = `availability.${key}`;
    if (typeof value !== 'string') {
      violations.push({ path, rule: 'availability_time' });
      continue;
    }
    if (!zoneOk) continue;
    const result = zonedInstant(value, zone);
    if (result.ok) instants[key] = result.instant;
    else if (result.reason === 'does-not-exist') violations.push({ path, rule: 'time_does_not_exist', params: { time: value.replace('T', ' '), timeZone: zone } });
    else violations.push({ path, rule: 'availability_time' });
  }
  const { opens_at: opensAt, closes_at: closesAt } = instants;
  if (opensAt && closesAt && closesAt.getTime() <= opensAt.getTime()) violations.push({ path: 'availability.closes_at', rule: 'closes_before_opens' });
  if (violations.length > 0) return { ok: false, violations };
  return { ok: true, value: { opensAt, closesAt, timeZone: zone as string, practice: fields.practice === true } };
}

/** An instant as the change history records it: its wall-clock reading and time zone, the same in every language. */
export function recordedTime(instant: Date | undefined, timeZone: string | undefined): string | null {
  return instant ? `${wallClock(instant, timeZone ?? 'UTC').replace('T', ' ')} (${timeZone ?? 'UTC'})` : null;
}

/** The window's changes for the history: times as read in their time zone, so a zone change alone shows too. */
export function availabilityChanges(before: StoredAvailability, after: StoredAvailability): Array<{ path: string; before: unknown; after: unknown }> {
  const pairs: Array<[string, unknown, unknown]> = [
    ['availability.opens_at', recordedTime(before.opensAt, before.timeZone), recordedTime(after.opensAt, after.timeZone)],
    ['availability.closes_at', recordedTime(before.closesAt, before.timeZone), recordedTime(after.closesAt, after.timeZone)],
    ['availability.practice', before.practice, after.practice],
  ];
  return pairs.filter(([, was, now]) => was !== now).map(([path, was, now]) => ({ path, before: was, after: now }));
}

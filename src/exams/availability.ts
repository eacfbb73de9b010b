/**
 * Opening and closing times of an exam: entered as a wall-clock date-time in a time zone (the course's where
 * the LMS sends one, else the institution's, else UTC), stored as instants, and shown back in the reader's
 * locale. Pure; the time-zone rules are the runtime's (Intl, IANA database). The setting itself is a row of
 * tool-settings/rows.ts.
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
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0] = match.slice(1).map(Number);
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

/** An instant as the change history records it: its wall-clock reading and time zone, the same in every language. */
export function recordedTime(instant: Date | undefined, timeZone: string | undefined): string | null {
  return instant ? `${wallClock(instant, timeZone ?? 'UTC').replace('T', ' ')} (${timeZone ?? 'UTC'})` : null;
}

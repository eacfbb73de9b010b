import { LIMITS } from '../../proctoring/contract.js';
import type { Translate } from '../../proctoring/labels.js';

/**
 * Seconds in the units a person thinks in: minutes, hours, or hours and minutes; seconds only for a value that is
 * not a whole number of minutes (one a script may have stored).
 */
export function durationInWords(t: Translate, seconds: number): string {
  if (!Number.isInteger(seconds) || seconds % 60 !== 0) return t('settings:duration.seconds', { count: seconds });
  const minutes = seconds / 60;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return t('settings:duration.minutes', { count: minutes });
  if (rest === 0) return t('settings:duration.hours', { count: hours });
  return t('settings:duration.hoursMinutes', { hours: t('settings:duration.hours', { count: hours }), minutes: t('settings:duration.minutes', { count: rest }) });
}

/** A student's link validity as forms take it, in whole minutes (the Launch API's `expire` is in seconds, 1 to 18000). */
export const LINK_MINUTES = { min: Math.max(1, Math.ceil(LIMITS.candidateExpire.min / 60)), max: Math.floor(LIMITS.candidateExpire.max / 60) } as const;

/**
 * A link validity in seconds as a form shows it in minutes: whole minutes as they are, anything else to two
 * decimals. A form sends the stored seconds back with it (`secondsFromMinutes`'s `kept`), so a value that is no
 * whole number of minutes is saved unchanged while the minutes stay as shown.
 */
export function minutesText(seconds: number): string {
  return String(Math.round((seconds / 60) * 100) / 100);
}

/** A value a form refused: the typed text, for the rules to refuse again and for the form to show as typed. */
export type MinutesInput = { ok: true; seconds: number | undefined } | { ok: false; typed: string };

/**
 * The minutes a form sent, as the document's seconds: empty is "not set"; the text shown for the stored value
 * (`kept`, in seconds) is that value to the second; otherwise whole minutes from 1 to 300.
 */
export function secondsFromMinutes(typed: string, kept: number | undefined): MinutesInput {
  const text = typed.trim();
  if (text === '') return { ok: true, seconds: undefined };
  if (kept !== undefined && text === minutesText(kept)) return { ok: true, seconds: kept };
  if (!/^\d{1,6}$/.test(text)) return { ok: false, typed: text };
  const minutes = Number(text);
  return minutes >= LINK_MINUTES.min && minutes <= LINK_MINUTES.max ? { ok: true, seconds: minutes * 60 } : { ok: false, typed: text };
}

/** The sentence a refused link validity gets, in minutes (the settings page's script says the same). */
export const minutesRefusal = (t: Translate): string => t('settings:script.expireMinutes', { min: LINK_MINUTES.min, max: LINK_MINUTES.max });

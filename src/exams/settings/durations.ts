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

import { POST_MESSAGE_NOTIFICATION } from '../../proctoring/contract.js';
import { english } from '../../proctoring/english.js';
import { MEMBER_SETTING_ROWS, memberPath } from '../../proctoring/exam-settings.js';
import { choiceLabel, labelKey, type Translate } from '../../proctoring/labels.js';
import { examSettingLabel } from './labels.js';
import { durationInWords } from './durations.js';
import type { RecordedChange } from './changes.js';
import type { SettingsChange } from './document.js';
import { ENGLISH, type PageI18n } from './i18n.js';
import { translator } from '../../i18n/index.js';

/**
 * The change history in the reader's words: each changed field by its label, with its old and new value
 * ("Record video: off → on", "Break duration (minutes): 10 → 15"), and when, in the reader's locale. Pure:
 * the page renders it, the save answer carries it so the page can show it at once. Labels come from the
 * settings table and catalog, so a new setting needs no change here; the API's own spelling (member names,
 * `post_message_nofication`) never appears.
 */

export interface DescribedChange {
  label: string;
  before: string;
  after: string;
  /** The whole line, in the reader's language. */
  text: string;
  /** The line in its parts, the values that are addresses or page patterns marked to read left to right. */
  parts: ReadonlyArray<{ text: string; ltr?: true }>;
}

/** Settings whose values are addresses or page patterns: left to right in every language (`<bdi dir="ltr">`). */
const LEFT_TO_RIGHT: ReadonlySet<string> = new Set(['launch_url', 'exam_start', 'exam_take', 'exam_end', 'pre_auth', 'post_auth', 'tool.quiz_url', 'tool.redirect_url']);

/** Stand for the values in a formatted line, which is then cut around them (a language may put "after" first). */
const BEFORE_SLOT = '\u0001';
const AFTER_SLOT = '\u0002';
const CUT = '\u0000';

function changeLine(t: Translate, path: string, change: SettingsChange, label: string, before: string, after: string): DescribedChange {
  const addresses = LEFT_TO_RIGHT.has(labelKey(path));
  const part = (text: string, value: unknown) => (addresses && typeof value === 'string' && value !== '' ? { text, ltr: true as const } : { text });
  const parts = t('settings:history.change', { label, before: BEFORE_SLOT, after: AFTER_SLOT })
    .replaceAll(BEFORE_SLOT, `${CUT}${BEFORE_SLOT}${CUT}`)
    .replaceAll(AFTER_SLOT, `${CUT}${AFTER_SLOT}${CUT}`)
    .split(CUT)
    .filter((piece) => piece !== '')
    .map((piece) => (piece === BEFORE_SLOT ? part(before, change.before) : piece === AFTER_SLOT ? part(after, change.after) : { text: piece }));
  return { label, before, after, text: t('settings:history.change', { label, before, after }), parts };
}

export interface DescribedEntry {
  at: string;
  /** `at` in the reader's locale (UTC, named). */
  when: string;
  who: string;
  source: RecordedChange['source'];
  /** The entry's line around its time: "[before]<time>[after]", e.g. "", ", by you:". */
  byline: [before: string, after: string];
  changes: DescribedChange[];
  /** Attempts that ran under the settings before this change, and that in words. */
  attemptsBefore?: number;
  attemptsNote?: string;
}

/** Values in words, by path and stored value (`settings:history.value.<word>`). */
const WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  exam_take: { [POST_MESSAGE_NOTIFICATION]: 'signalled' },
  exam_end: { [POST_MESSAGE_NOTIFICATION]: 'signalled' },
  status: { open: 'open', closed: 'closed' },
  'tool.redirect': { lms: 'redirectLms', message: 'redirectMessage', url: 'redirectUrl' },
};

/** Preset ids stored in the document, named by the preset's name in the catalog. */
const PRESET_NAMES: Readonly<Record<string, string>> = { 'tool.security_preset': 'security', 'tool.lms_preset': 'lms' };

const TRISTATE: ReadonlySet<string> = new Set(MEMBER_SETTING_ROWS.flatMap((row) => (row.kind === 'tristate' ? [memberPath(row)] : [])));

export function changeLabel(path: string, t: Translate = english): string {
  // The link's validity is told as a duration ("2 hours"): its name carries no unit.
  if (labelKey(path) === 'expire') return t('settings:document.expire.name');
  return examSettingLabel(t, path) ?? labelKey(path).split('.').pop() ?? path;
}

/** A stored value in words: on/off, a choice's label, "not set" for an absent value, lists by their items. */
export function valueInWords(path: string, value: unknown, t: Translate = english): string {
  const key = labelKey(path);
  const word = (name: string) => t(`settings:history.value.${name}`);
  if (value === null || value === undefined || value === '') return TRISTATE.has(key) ? word('institutionDefault') : word('notSet');
  if (typeof value === 'boolean') return TRISTATE.has(key) ? word(value ? 'yes' : 'no') : word(value ? 'on' : 'off');
  if (typeof value === 'number' && key === 'expire') return durationInWords(t, value);
  if (typeof value === 'number') return choiceLabel(t, key, value) ?? String(value);
  if (typeof value === 'string') {
    const named = WORDS[key]?.[value];
    if (named) return word(named);
    const presets = PRESET_NAMES[key];
    if (presets && /^[a-z0-9-]+$/.test(value) && english.has(`settings:presets.${presets}.${value}.name`)) return t(`settings:presets.${presets}.${value}.name`);
    return value;
  }
  if (Array.isArray(value)) return value.length === 0 ? word('none') : value.map((item) => (typeof item === 'object' && item !== null ? Object.values(item).join(' | ') : String(item))).join(', ');
  return JSON.stringify(value);
}

/** An accommodation's change (`accommodations.<student id>.<setting path>`): the student and the setting's own label. */
function accommodationLabel(path: string, t: Translate, names: Names): { label: string; path: string } | undefined {
  const match = /^accommodations\.(.+)\.(exempt|expire|exam_settings\.[a-z0-9_]+|break_settings(?:\.[a-z0-9_]+)?)$/.exec(path);
  if (!match) return undefined;
  const [, id = '', inner = ''] = match;
  // The name from the course roster when the page is built (never stored), else the pseudonymous id's start.
  const student = names?.get(id) ?? id.slice(0, 8);
  // The English settings catalog speaks only `settings:`; this namespace comes from the English translator then.
  const own: Translate = t === english ? (key, values) => translator('en').t(key, values) : t;
  const setting = inner === 'exempt' ? own('accommodations:history.exempt') : changeLabel(inner, t);
  return { label: own('accommodations:history.change', { student, label: setting }), path: inner };
}

/** Pseudonymous user_id → name, from the course roster when the page is built. */
type Names = ReadonlyMap<string, string> | undefined;

/** Whether describing these entries needs the course's names (a student's accommodation, another person's change). */
export function historyNeedsNames(entries: readonly RecordedChange[], me: string): boolean {
  return entries.some((entry) => (entry.userId !== undefined && entry.userId !== me) || entry.changes.some((change) => change.path.startsWith('accommodations.')));
}

export function describeChange(change: SettingsChange, t: Translate = english, names?: Names): DescribedChange {
  const accommodation = accommodationLabel(change.path, t, names);
  if (accommodation) {
    return changeLine(t, accommodation.path, change, accommodation.label, valueInWords(accommodation.path, change.before, t), valueInWords(accommodation.path, change.after, t));
  }
  return changeLine(t, change.path, change, changeLabel(change.path, t), valueInWords(change.path, change.before, t), valueInWords(change.path, change.after, t));
}

/** Stands for the time in a formatted line, which is then cut around it. */
const TIME_SLOT = '\u0000';

/** `me` is the viewer's pseudonymous id: their own changes read "you". */
export function describeEntry(entry: RecordedChange, me: string, i18n: PageI18n = ENGLISH, names?: Names): DescribedEntry {
  const { t } = i18n;
  const who =
    entry.userId === me
      ? t('settings:history.who.you')
      : entry.userId
        ? (names?.get(entry.userId) ?? t('settings:history.who.user', { id: entry.userId.slice(0, 8) }))
        : entry.source === 'import'
          ? t('settings:history.who.import')
          : t('settings:history.who.tool');
  const line =
    entry.source === 'settings'
      ? t('settings:history.entry', { time: TIME_SLOT, who })
      : t('settings:history.entryFrom', { time: TIME_SLOT, who, source: t(`settings:history.source.${entry.source}`) });
  const [before = '', ...after] = line.split(TIME_SLOT);
  return {
    at: entry.at.toISOString(),
    when: i18n.formatDateTime(entry.at, { dateStyle: 'medium', timeStyle: 'long', timeZone: 'UTC' }),
    who,
    source: entry.source,
    byline: [before, after.join('')],
    changes: entry.changes.map((change) => describeChange(change, t, names)),
    ...(entry.attemptsBefore ? { attemptsBefore: entry.attemptsBefore, attemptsNote: t('settings:history.attemptsBefore', { count: entry.attemptsBefore }) } : {}),
  };
}

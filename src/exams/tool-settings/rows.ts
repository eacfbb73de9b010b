import { availabilityAt, isTimeZone, recordedTime, wallClock, zonedInstant } from '../availability.js';
import { toolSetting, type HubMark, type ToolSettingProblem } from './row.js';
import { withoutHiddenCharacters } from '../../text/control-characters.js';

/**
 * The tool-side exam settings, one row each (row.ts says what a row holds; docs/exams.md "Adding a setting"
 * lists the files a new one touches). Their order is the order of the form, the hub's badges and lines, and
 * the change history.
 */

const dateOf = (value: unknown): Date | undefined => (value instanceof Date || typeof value === 'string' ? new Date(value) : undefined);


/** When students may start: opening and closing instants, and the time zone they were entered in (exams/availability.ts). */
interface Window {
  opensAt?: Date;
  closesAt?: Date;
  timeZone?: string;
}
/** No times: open at once, never closed. */
const NO_WINDOW: Window = { opensAt: undefined, closesAt: undefined, timeZone: undefined };
type WindowRule = 'availability_time' | 'unknown_time_zone' | 'time_does_not_exist' | 'closes_before_opens';

const availability = toolSetting<Window, WindowRule>({
  name: 'availability',
  properties: ['opensAt', 'closesAt', 'timeZone'],
  // Columns of their own, so the database itself refuses a closing time before the opening (migration 0017).
  storage: {
    kind: 'columns',
    columns: ['opens_at', 'closes_at', 'time_zone'],
    read: (row) => ({ opensAt: dateOf(row.opens_at), closesAt: dateOf(row.closes_at), timeZone: typeof row.time_zone === 'string' ? row.time_zone : undefined }),
    write: (value) => [value.opensAt ?? null, value.closesAt ?? null, value.timeZone ?? null],
  },
  initial: NO_WINDOW,
  example: { opensAt: new Date('2027-10-31T00:30:00Z'), closesAt: new Date('2027-11-02T16:00:00Z'), timeZone: 'Europe/Berlin' },
  invalid: ({ opensAt, closesAt }) => (opensAt && closesAt && closesAt.getTime() <= opensAt.getTime() ? 'an exam must close after it opens' : undefined),
  wire: {
    group: 'availability',
    members: ['opens_at', 'closes_at', 'time_zone'],
    control: 'times-in-zone',
    show: (value, defaultZone) => {
      const zone = value.timeZone ?? defaultZone;
      return { opens_at: value.opensAt ? wallClock(value.opensAt, zone) : null, closes_at: value.closesAt ? wallClock(value.closesAt, zone) : null, time_zone: zone };
    },
    parse: (members) => {
      const problems: Array<ToolSettingProblem<WindowRule>> = [];
      const zone = members.time_zone;
      const zoneOk = typeof zone === 'string' && isTimeZone(zone);
      if (!zoneOk) problems.push({ path: 'availability.time_zone', rule: 'unknown_time_zone' });
      const instants: { opens_at?: Date; closes_at?: Date } = {};
      for (const key of ['opens_at', 'closes_at'] as const) {
        const value = members[key];
        if (value === undefined || value === null || value === '') continue;
        const path = `availability.${key}`;
        if (typeof value !== 'string') {
          problems.push({ path, rule: 'availability_time' });
          continue;
        }
        if (!zoneOk) continue;
        const result = zonedInstant(value, zone);
        if (result.ok) instants[key] = result.instant;
        else if (result.reason === 'does-not-exist') problems.push({ path, rule: 'time_does_not_exist', params: { time: value.replace('T', ' '), timeZone: zone } });
        else problems.push({ path, rule: 'availability_time' });
      }
      const { opens_at: opensAt, closes_at: closesAt } = instants;
      if (opensAt && closesAt && closesAt.getTime() <= opensAt.getTime()) problems.push({ path: 'availability.closes_at', rule: 'closes_before_opens' });
      return problems.length > 0 || !zoneOk ? { ok: false, problems } : { ok: true, value: { opensAt, closesAt, timeZone: zone } };
    },
  },
  rules: ['availability_time', 'unknown_time_zone', 'time_does_not_exist', 'closes_before_opens'],
  // Times as read in their time zone, so a change of zone alone shows too; the same in every language.
  changes: (before, after) =>
    [
      { path: 'availability.opens_at', before: recordedTime(before.opensAt, before.timeZone), after: recordedTime(after.opensAt, after.timeZone) },
      { path: 'availability.closes_at', before: recordedTime(before.closesAt, before.timeZone), after: recordedTime(after.closesAt, after.timeZone) },
    ].filter((change) => change.before !== change.after),
  history: ['availability.opens_at', 'availability.closes_at'],
  // A copied course usually runs in another term: the old term's dates would close the copy at once.
  copy: () => NO_WINDOW,
  hub: (value, { now, formatInstant }) => {
    const state = availabilityAt(value, now);
    const line = (word: string, instant: Date): HubMark[] => [{ place: 'line', tone: 'hub-window', attribute: { name: 'data-window', value: word }, word: `hub.${word}`, values: { when: formatInstant(instant, value.timeZone) } }];
    if (state === 'not-yet-open' && value.opensAt) return line('notYetOpen', value.opensAt);
    if (state === 'closed' && value.closesAt) return line('closedSince', value.closesAt);
    if (state === 'open' && value.closesAt) return line('openUntil', value.closesAt);
    return [];
  },
  words: ['hub.notYetOpen', 'hub.openUntil', 'hub.closedSince'],
});

/** A course copy kept another course's quiz address: students wait until an instructor confirms or replaces it (docs/exams.md). */
interface QuizAddressCheck {
  quizAddressCheck: boolean;
  /** The LTI context id of the course the copied quiz address came from (course-copy.ts); undefined once checked. */
  quizAddressCourse?: string;
}

const quizAddressCheck = toolSetting<QuizAddressCheck>({
  name: 'quiz_address_check',
  properties: ['quizAddressCheck', 'quizAddressCourse'],
  storage: {
    kind: 'columns',
    columns: ['quiz_address_check', 'quiz_address_course'],
    read: (row) => ({ quizAddressCheck: row.quiz_address_check === true, quizAddressCourse: typeof row.quiz_address_course === 'string' ? row.quiz_address_course : undefined }),
    // Checked, the address is this course's: where it came from no longer matters.
    write: (value) => [value.quizAddressCheck, value.quizAddressCheck ? (value.quizAddressCourse ?? null) : null],
  },
  initial: { quizAddressCheck: false, quizAddressCourse: undefined },
  example: { quizAddressCheck: true, quizAddressCourse: 'course-of-the-original' },
  rules: [],
  changes: (before, after) => (before.quizAddressCheck === after.quizAddressCheck ? [] : [{ path: 'quiz_address_check', before: before.quizAddressCheck, after: after.quizAddressCheck }]),
  history: ['quiz_address_check'],
  // The copy remembers whose quiz its address names: another course's is never confirmed with one click.
  copy: (_source, from) => ({ quizAddressCheck: true, quizAddressCourse: from.contextId }),
  hub: (value) =>
    value.quizAddressCheck
      ? [
          { place: 'badge', tone: 'warn', attribute: { name: 'data-quiz-address-check' }, word: 'badge' },
          { place: 'line', tone: 'hub-notice', attribute: { name: 'id', value: 'quiz-address-check' }, word: 'notice' },
        ]
      : [],
  words: ['badge', 'notice'],
});

/** A practice exam: the same proctoring, its attempts marked as practice. */
const practice = toolSetting({
  name: 'practice',
  properties: ['practice'],
  storage: { kind: 'columns', columns: ['practice'], read: (row) => ({ practice: row.practice === true }), write: (value) => [value.practice] },
  initial: { practice: false },
  example: { practice: true },
  wire: {
    group: 'availability',
    members: ['practice'],
    control: 'checkbox',
    show: (value) => ({ practice: value.practice }),
    parse: (members) =>
      members.practice === undefined || typeof members.practice === 'boolean'
        ? { ok: true, value: { practice: members.practice === true } }
        : { ok: false, problems: [{ path: 'availability.practice', rule: 'type' }] },
  },
  rules: [],
  changes: (before, after) => (before.practice === after.practice ? [] : [{ path: 'availability.practice', before: before.practice, after: after.practice }]),
  history: ['availability.practice'],
  copy: (source) => ({ practice: source.practice }),
  hub: (value) => (value.practice ? [{ place: 'badge', tone: 'info', attribute: { name: 'data-practice' }, word: 'badge' }] : []),
  attemptFlag: { property: 'practice', csvHeader: 'Practice' },
  words: ['badge'],
});

/** The longest instructions, in characters (a few sentences: the start page is read just before the exam). */
export const MAX_INSTRUCTIONS = 500;

/**
 * The instructor's own words to students, in any language, on the start page and in the hub: stored as typed
 * (line breaks as \n), shown escaped; characters that change how text is shown (controls, bidi overrides) are
 * dropped, so the words cannot reorder the page around them.
 */
const instructions = toolSetting<{ instructions: string }, 'instructions_too_long'>({
  name: 'instructions',
  properties: ['instructions'],
  storage: { kind: 'document', read: (stored) => ({ instructions: typeof stored === 'string' ? stored : '' }), write: (value) => value.instructions },
  initial: { instructions: '' },
  example: { instructions: 'Bring a pencil <b>and</b> scrap paper.\nأحضر قلمًا — 带上铅笔。' },
  invalid: ({ instructions: text }) => ([...text].length > MAX_INSTRUCTIONS ? `instructions longer than ${MAX_INSTRUCTIONS} characters` : undefined),
  wire: {
    group: 'students',
    members: ['instructions'],
    control: 'text',
    maxLength: MAX_INSTRUCTIONS,
    show: (value) => ({ instructions: value.instructions }),
    parse: (members) => {
      const raw = members.instructions;
      if (raw === undefined || raw === null) return { ok: true, value: { instructions: '' } };
      if (typeof raw !== 'string') return { ok: false, problems: [{ path: 'students.instructions', rule: 'type' }] };
      const text = withoutHiddenCharacters(raw.replace(/\r\n?/g, '\n')).trim();
      if ([...text].length > MAX_INSTRUCTIONS) return { ok: false, problems: [{ path: 'students.instructions', rule: 'instructions_too_long', params: { max: String(MAX_INSTRUCTIONS) } }] };
      return { ok: true, value: { instructions: text } };
    },
  },
  rules: ['instructions_too_long'],
  changes: (before, after) => (before.instructions === after.instructions ? [] : [{ path: 'students.instructions', before: before.instructions, after: after.instructions }]),
  history: ['students.instructions'],
  copy: (source) => ({ instructions: source.instructions }),
  hub: (value) => (value.instructions ? [{ place: 'line', tone: 'hub-instructions', attribute: { name: 'data-instructions' }, word: 'hub.shown', values: { text: value.instructions } }] : []),
  words: ['hub.shown'],
});

export const TOOL_SETTING_ROWS = [availability, quizAddressCheck, practice, instructions] as const;

import type { Attempt } from '../attempts.js';

/**
 * What one tool-side exam setting is: a setting of this tool, never sent to the proctoring service (those are
 * the Launch API's, in proctoring/exam-settings.ts). One row says everything the rest of the tool needs to
 * know; validation, storage, the settings form, the hub, the change history, export/import, course copies,
 * the results CSV and the setting's words are derived from the rows (registry.ts).
 *
 * A row's words are in the `settings` catalog under `settings:toolSettings.<name>`: `label`, `help` (when the
 * form shows it), `members.<member>` (a row of several members), and every key the row lists in `words`.
 */

/** The flags an attempt records (exams/attempts.ts). */
export type AttemptFlag = keyof Pick<Attempt, 'practice' | 'exempt'>;

/**
 * The objects of the settings API and of exams files that carry tool-side settings, each optional (absent:
 * left as they are). A row names one; a new object is one more name here.
 */
export const TOOL_SETTING_GROUPS = ['availability', 'students'] as const;
export type ToolSettingGroup = (typeof TOOL_SETTING_GROUPS)[number];

/** One recorded change (`exam_settings_changes`): the path names the member, the values are in words-ready form. */
export interface ToolSettingChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** A refusal of a value sent by a form, the API or an exams file; `rule` has its sentence at `settings:rules.<rule>`. */
export interface ToolSettingProblem<R extends string = string> {
  path: string;
  rule: R | 'type';
  params?: Readonly<Record<string, string>>;
}

export type ParsedSetting<V, R extends string = string> = { ok: true; value: V } | { ok: false; problems: Array<ToolSettingProblem<R>> };

/** How the settings form shows a setting (each kind is drawn by views/exams/tool-settings.ejs and read by the form script). */
export type ToolSettingControl =
  /** Wall-clock times (`datetime-local`) for the members but the last, and the last a time-zone list. */
  | 'times-in-zone'
  /** One checkbox. */
  | 'checkbox'
  /** A few lines of free text (`maxLength`: its bound in characters). */
  | 'text';

/** Something the hub shows about a setting's value: a badge beside the exam's status, or a line below it. */
export interface HubMark {
  place: 'badge' | 'line';
  /** badge: `badge-<tone>`; line: its class. */
  tone: 'info' | 'warn' | 'hub-window' | 'hub-notice' | 'hub-instructions';
  /** The element's identifying attribute, e.g. `data-practice`, or `data-window` with a value. */
  attribute: { name: string; value?: string };
  /** One of the row's `words`. */
  word: string;
  values?: Readonly<Record<string, string>>;
}

export interface HubContext {
  now: Date;
  /** An instant as the hub writes it, read in a time zone (the one the times were entered in, else the reader's). */
  formatInstant(instant: Date, timeZone: string | undefined): string;
}

/** The course an exam is copied from (its LTI context id). */
export interface CopiedFrom {
  contextId: string;
}

/** Columns of its own in `exams` (a migration adds them): `write` returns their values in `columns`' order. */
export interface ColumnStorage<V> {
  kind: 'columns';
  columns: readonly string[];
  read(row: Readonly<Record<string, unknown>>): V;
  write(value: V): unknown[];
}

/**
 * The member `<name>` of the exam's `tool_settings` document (JSON): a setting added without a migration.
 * `read` gets what is stored (undefined: never stored) and must read anything it did not write as `initial`.
 */
export interface DocumentStorage<V> {
  kind: 'document';
  read(stored: unknown): V;
  write(value: V): unknown;
}

/**
 * Methods, not function-valued properties: a table of rows of different value types is read as rows of
 * `object` (registry.ts), and only methods allow that.
 */
export interface ToolSettingRow<V extends object, R extends string = string> {
  /** The setting's name: its catalog entry (`settings:toolSettings.<name>`) and, for a one-member row, its path. */
  name: string;
  /** The exam's properties this row owns (`Exam.<property>`), which the store reads and writes together. */
  properties: readonly string[];
  /** Where the value is kept. */
  storage: ColumnStorage<V> | DocumentStorage<V>;
  /** What a new exam has. */
  initial: V;
  /** A value other than `initial` that every input accepts: test/unit/exams/tool-settings.test.ts sends it through every place. */
  example: V;
  /** A value the store must refuse (its reason), though every input was checked: a fault in the tool, not the instructor's. */
  invalid?(value: V): string | undefined;

  /**
   * In the settings API and exams files: the object it is read and written under (`availability`), and its
   * members there. Absent: neither sent nor accepted (an exams file and the API leave it as it is).
   */
  wire?: {
    group: ToolSettingGroup;
    members: readonly string[];
    /** The members as read or written (`defaultZone`: the reader's time zone, for a value that has none). */
    show(value: V, defaultZone: string): Readonly<Record<string, unknown>>;
    /** Checks the members sent (absent ones are undefined) and turns them into the stored value. */
    parse(members: Readonly<Record<string, unknown>>): ParsedSetting<V, R>;
    /** The form control; absent: not on the settings form. */
    control?: ToolSettingControl;
    /** For a `text` control: the most characters `parse` accepts (the form's textarea stops there too). */
    maxLength?: number;
  };
  /** Rule codes `parse` reports (besides `type`), each with its sentence at `settings:rules.<rule>`. */
  rules: readonly R[];

  /** The change history's entries between two values, paths under `history`. */
  changes(before: V, after: V): ToolSettingChange[];
  /** The paths `changes` records; each is labelled by `settings:toolSettings.<name>.members.<last part>` (or the label). */
  history: readonly string[];

  /** What a course copy of an exam with `source` gets; `from`: the course the exam is copied from. */
  copy(source: V, from: CopiedFrom): V;
  /** What the hub shows. */
  hub(value: V, context: HubContext): HubMark[];
  /** Attempts record it as this flag: the hub marks such attempts with the row's `badge` and the results CSV has its column. */
  attemptFlag?: { property: AttemptFlag; csvHeader: string };

  /** Catalog keys under `settings:toolSettings.<name>` beyond label, help and members. */
  words: readonly string[];
}

/** A row, with its value type checked where it is written. */
export const toolSetting = <V extends object, const R extends string = never>(row: ToolSettingRow<V, R> & { properties: ReadonlyArray<keyof V & string> }): ToolSettingRow<V, R> => row;

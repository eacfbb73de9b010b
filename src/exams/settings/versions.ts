import { EXAM_SETTING_ROWS } from '../../proctoring/exam-settings.js';
import { isRecord } from '../../values.js';

/**
 * Versions of the stored settings document (exams.settings) and the chain that brings an older one
 * forward. Version 1 is every document written before documents carried a version; version 2 adds
 * `version`. Stored exams are upgraded when read (the store), so no data migration is needed and an
 * exported document of any version can be imported.
 *
 * A new exam setting needs one row in proctoring/exam-settings.ts and no new version: every step, and the
 * final one, gives a member the document lacks its row's default. A new version (one more step here) is
 * needed only when a stored value changes its shape or meaning.
 */
export const SETTINGS_DOCUMENT_VERSION = 2;

type Stored = Record<string, unknown>;

/** Each step takes a document of version N (the key) to version N + 1. */
const STEPS: Readonly<Record<number, (document: Stored) => Stored>> = {
  1: (document) => ({ ...document, version: 2 }),
};

/** The version a stored document declares; 1 when it declares none. */
export function versionOf(document: Stored): unknown {
  return document.version === undefined ? 1 : document.version;
}

/** exam_settings with every member the table has and the document lacks set to the row's default. */
function withDefaults(document: Stored): Stored {
  if (!isRecord(document.exam_settings)) return document;
  const settings: Stored = { ...document.exam_settings };
  for (const row of EXAM_SETTING_ROWS) if (!(row.name in settings)) settings[row.name] = Array.isArray(row.default) ? [] : row.default;
  return { ...document, exam_settings: settings };
}

/**
 * The document brought to the current version. A version this tool does not know (newer, or not a
 * number) is returned as it is, so validation names it instead of guessing.
 */
export function upgrade(stored: Stored): Stored {
  let document = stored;
  let version = versionOf(document);
  while (typeof version === 'number' && version < SETTINGS_DOCUMENT_VERSION) {
    const step = STEPS[version];
    if (!step) break;
    document = step(document);
    version = versionOf(document);
  }
  return version === SETTINGS_DOCUMENT_VERSION ? withDefaults(document) : document;
}

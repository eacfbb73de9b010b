import type { Violation } from '../../proctoring/contract.js';
import type { Translate } from '../../proctoring/labels.js';
import { localizeViolation as localizeWithLabels } from '../../proctoring/violations.js';
import { examSettingLabel } from './labels.js';

/** A violation of a save of an exam's settings in the reader's language, tool-side settings named too. */
export function localizeViolation<R extends string>(t: Translate, violation: Violation<R>): Violation<R> {
  return localizeWithLabels(t, violation, examSettingLabel);
}

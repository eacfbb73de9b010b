import type { SettingsChangeLog } from './settings/changes.js';
import { diffSettings } from './settings/document.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX, type Exam, type ExamKey, type ExamStore } from './store.js';
import { isUuid } from '../values.js';
import type { AccommodationStore } from './accommodations/store.js';

export { DEEP_LINK_PLACEHOLDER_PREFIX };


/** The change-history entry of the "check the quiz address" mark (not a Launch API setting). */
export const QUIZ_ADDRESS_CHECK = 'quiz_address_check';
const QUIZ_ADDRESS_CHECK_SET = { path: QUIZ_ADDRESS_CHECK, before: false, after: true };

export const isPlaceholderLink = (resourceLinkId: string) => resourceLinkId.startsWith(DEEP_LINK_PLACEHOLDER_PREFIX);

export interface ResolveOptions {
  /** Records copied settings (source course-copy). */
  changes?: SettingsChangeLog;
  /** Copies the original's accommodations along with its settings. */
  accommodations?: Pick<AccommodationStore, 'copy'>;
}

/**
 * The exam of this resource link, for a launch (instead of `exams.ensure(key, title)`):
 * - an exam already configured for the link is returned as it is;
 * - a link created by deep linking (customExamId names an exam still on its placeholder link in the same
 *   course) takes that exam over, settings and id included;
 * - a new or unconfigured link whose customExamId names a configured exam of another course of the same
 *   LMS (an LMS course copy, or a duplicated activity) gets a copy of that exam's settings, and its title
 *   when the LMS sends none.
 * customExamId comes from the LMS; an id of another platform (issuer or client id) is ignored.
 */
export async function resolveExamForLaunch(exams: ExamStore, key: ExamKey, title: string, customExamId?: string, options: ResolveOptions = {}): Promise<Exam> {
  const existing = await exams.find(key);
  if (existing?.settings) return exams.ensure(key, title || existing.title);
  // The custom parameter is whatever the LMS sends (an instructor may edit it): only a UUID is looked up.
  const source = customExamId && isUuid(customExamId) ? await exams.get(customExamId) : undefined;
  const samePlatform = source !== undefined && source.issuer === key.issuer && source.clientId === key.clientId;
  if (!source || !samePlatform || source.id === existing?.id) return exams.ensure(key, title || existing?.title || 'Proctored exam');

  const sameCourse = source.deploymentId === key.deploymentId && source.contextId === key.contextId;
  if (!existing && sameCourse && isPlaceholderLink(source.resourceLinkId)) {
    try {
      const claimed = await exams.claimResourceLink(source.id, source.resourceLinkId, key.resourceLinkId, title || source.title);
      if (claimed) return claimed;
    } catch {
      // Another launch of the same new link created or claimed it first: fall through to ensure.
    }
  }

  const exam = await exams.ensure(key, title || source.title);
  if (exam.settings || !source.settings || isPlaceholderLink(exam.resourceLinkId)) return exam;
  if (await exams.saveSettingsIfUnset(exam.id, source.settings)) {
    // The copied settings point at the original course's quiz: students wait until an instructor confirms or replaces it.
    await exams.setQuizAddressCheck(exam.id, true);
    // A practice exam stays one; its times do not travel (a copied course runs in another term).
    const practice = source.practice ? [{ path: 'availability.practice', before: false, after: true }] : [];
    if (source.practice) await exams.setAvailability(exam.id, { practice: true });
    // Accommodations go with the exam: pseudonymous ids are per platform, so the same students keep theirs.
    const accommodations = options.accommodations ? await options.accommodations.copy(source.id, exam.id) : [];
    await options.changes?.record(exam.id, { source: 'course-copy', changes: [...diffSettings(null, source.settings), QUIZ_ADDRESS_CHECK_SET, ...practice, ...accommodations] });
  }
  return (await exams.get(exam.id)) ?? exam;
}

import type { SettingsChangeLog } from './settings/changes.js';
import { diffSettings } from './settings/document.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX, type Exam, type ExamKey, type ExamStore } from './store.js';
import { isUuid } from '../values.js';
import type { AccommodationStore } from './accommodations/store.js';
import { copiedToolSettings, toolSettingChanges } from './tool-settings/registry.js';

export { DEEP_LINK_PLACEHOLDER_PREFIX };

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
    // A template course's exam may never be launched itself, only copied: the copy keeps it from retention.
    if (isPlaceholderLink(source.resourceLinkId)) await exams.notePlaceholderUsed(source.id);
    // Each tool-side setting says what a copy keeps (the quiz address is to be checked, the times stay behind, …).
    const copied = copiedToolSettings(source, source);
    await exams.setToolSettings(exam.id, copied);
    // Accommodations go with the exam: pseudonymous ids are per platform, so the same students keep theirs.
    const accommodations = options.accommodations ? await options.accommodations.copy(source.id, exam.id) : [];
    await options.changes?.record(exam.id, { source: 'course-copy', changes: [...diffSettings(null, source.settings), ...toolSettingChanges(exam, copied), ...accommodations] });
  }
  return (await exams.get(exam.id)) ?? exam;
}

import type { Request, Response } from 'express';
import type { Csrf } from '../http/csrf.js';
import type { LtiLaunch } from '../lti/claims.js';
import type { LtiAdapter } from '../lti/provider.js';
import { translatorOf } from '../i18n/middleware.js';
import { timeZoneOf } from '../exams/availability.js';
import { ATTEMPT_FLAGS, hubMarks, type ShownMark } from '../exams/tool-settings/registry.js';
import { overrideInWords } from '../exams/accommodations/form.js';
import type { AccommodationOverride } from '../exams/accommodations/override.js';
import { MIN_SUSPICION_CHOICES, TESTS_FILTERS } from '../webhooks/results.js';
import { localizeViolation } from '../exams/settings/violations.js';
import type { Violation } from '../proctoring/contract.js';
import { roleReasonWording } from '../lti/role-words.js';
import { LAUNCH_PATHS } from './paths.js';
import { escapeHtml } from '../exams/settings/i18n.js';
import type { HubView } from './service.js';
import { invalidSettingsSummary, LAUNCH_ENDPOINTS, LAUNCH_OUTCOMES, LAUNCH_ROLES, settingsSummary, shortId } from './summary.js';

export interface HubPageDeps {
  lti: Pick<LtiAdapter, 'ltikOf'>;
  csrf: Csrf;
}

/** The exam's hub page; `notice` is a line at its top (what the last action did), already in the reader's words. */
export function renderHub(req: Request, res: Response, deps: HubPageDeps, hub: HubView, launch: LtiLaunch, notice?: string): void {
  const ltik = deps.lti.ltikOf(res);
  const i18n = translatorOf(req, res);
  const timeZone = timeZoneOf(launch);
  const examId = hub.exam.id;
  res.set('Cache-Control', 'no-store');
  res.render('hub/hub', {
    title: hub.exam.title,
    pageClass: 'hub-page',
    hub,
    // The settings in the reader's words: a few lines, and every setting in a fold.
    summary: hub.exam.settings ? settingsSummary(hub.exam.settings, i18n.t) : undefined,
    invalidSummary: hub.exam.settings ? [] : invalidSettingsSummary(hub.exam.invalidSettings, i18n.t),
    ltik,
    csrfToken: deps.csrf.tokenFor(req, res),
    urls: {
      settings: LAUNCH_PATHS.settings(examId),
      review: LAUNCH_PATHS.review(examId),
      live: LAUNCH_PATHS.live(examId),
      hub: LAUNCH_PATHS.hub(examId),
      csv: LAUNCH_PATHS.attemptsCsv(examId),
      accommodation: LAUNCH_PATHS.accommodation(examId),
      removeAccommodation: LAUNCH_PATHS.removeAccommodation(examId),
      nameProctor: LAUNCH_PATHS.nameProctor(examId),
      unnameProctor: LAUNCH_PATHS.unnameProctor(examId),
    },
    notice,
    // What a GET of the hub's address (Back, reload) posts again: the session and the results' order and filter.
    sessionFields: {
      ltik,
      ...(hub.results ? { sort: hub.results.query.sort } : {}),
      ...(hub.results?.query.minSuspicion !== undefined ? { min: String(hub.results.query.minSuspicion) } : {}),
    },
    overrideInWords: (override: AccommodationOverride) => overrideInWords(override, i18n.t),
    rolesReason: roleReasonWording(hub.roles.why)(i18n),
    ruleInWords: (violation: Violation) => localizeViolation(i18n.t, violation).message,
    minSuspicionChoices: MIN_SUSPICION_CHOICES,
    testsFilters: TESTS_FILTERS,
    formatTime: (date: Date) => i18n.formatDateTime(date, { timeZone, dateStyle: 'medium', timeStyle: 'short' }),
    timeZone,
    marks: hubMarks(i18n.t, hub.exam, {
      now: new Date(),
      // In the time zone the times were entered in, named: the instructor who set them reads them back unchanged.
      formatInstant: (date, entered) => {
        const zone = entered ?? timeZone;
        return `${i18n.formatDateTime(date, { timeZone: zone, weekday: 'long' })} (${zone.replace(/_/g, ' ')})`;
      },
    }),
    markAttribute,
    attemptFlags: ATTEMPT_FLAGS,
    shortId,
    launchOutcomes: LAUNCH_OUTCOMES,
    launchRoles: LAUNCH_ROLES,
    launchEndpoints: LAUNCH_ENDPOINTS,
  });
}

/** A mark's identifying attribute as HTML (`data-practice`, `data-window="openUntil"`). */
function markAttribute(mark: ShownMark): string {
  const { name, value } = mark.attribute;
  return value === undefined ? escapeHtml(name) : `${escapeHtml(name)}="${escapeHtml(value)}"`;
}

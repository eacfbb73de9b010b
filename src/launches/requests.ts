// Where each Launch API field comes from (docs/launch-api.md, "Where each field comes from"), as pure
// functions: no express, no ltijs, no database. The service gathers the launch facts; these build the
// typed requests from them and the exam's parsed settings document; the proctoring client validates
// every request against the contract before anything is sent.
import { EXAM_SETTINGS_OFF, LIMITS, type Branding, type CandidateLaunchRequest, type LaunchpadRequest, type LiveLaunchRequest, type ProctorSettings, type ReviewerLaunchRequest } from '../proctoring/contract.js';
import { ASSUMED_LIMITS } from '../proctoring/assumptions.js';
import type { ExamSettingsDocument, RedirectMode } from '../exams/settings/document.js';
import type { InstitutionSettings } from '../institution/settings.js';

/** The pseudonymous and derived ids of one launch (src/lti/identifiers.ts). */
export interface LaunchIds {
  userId: string;
  examTag: string;
  sectionId: string;
}

/** The institution (platform) settings a request uses. */
export type InstitutionPart = Pick<InstitutionSettings, 'branding' | 'domain' | 'extensionAllowlist' | 'proctorSettings' | 'preAuth' | 'postAuth'>;

/** Where the candidate goes after the exam: the exam's choice (`tool.redirect`), back to the course by default. */
export function redirectOf(document: ExamSettingsDocument | null): { mode: RedirectMode; url?: string } {
  const tool = document?.tool;
  if (tool?.redirect === 'url') return { mode: 'url', url: tool.redirect_url };
  return { mode: tool?.redirect ?? 'lms' };
}

/**
 * `expire` is the exam's setting when it lies within the endpoint's range; otherwise it is omitted and
 * the service's default applies (spec: expire, Limits).
 */
export function expireFor(endpoint: 'candidate' | 'staff', examExpire: number | undefined): number | undefined {
  const range = endpoint === 'candidate' ? LIMITS.candidateExpire : LIMITS.staffExpire;
  if (examExpire === undefined || !Number.isInteger(examExpire)) return undefined;
  return examExpire >= range.min && examExpire <= range.max ? examExpire : undefined;
}

/** How long a roster link must stay valid: as long as the URL it goes with (the request's expire, or the endpoint default). */
export function linkTtlSeconds(endpoint: 'candidate' | 'staff', expire: number | undefined): number {
  return expire ?? (endpoint === 'candidate' ? LIMITS.candidateExpire.default : LIMITS.staffExpire.default);
}

/**
 * Branding from the institution's colours; logo_url is the tool's logo endpoint, sent only when the
 * institution has a logo. Undefined when there is nothing to brand.
 */
export function brandingOf(institution: Pick<InstitutionPart, 'branding'>, logoUrl: string | undefined): Branding | undefined {
  const branding: Branding = {};
  if (institution.branding.primary_color) branding.primary_color = institution.branding.primary_color;
  if (institution.branding.secondary_color) branding.secondary_color = institution.branding.secondary_color;
  if (logoUrl) branding.logo_url = logoUrl;
  return Object.keys(branding).length > 0 ? branding : undefined;
}

/** Who launches which exam, as every exam-level request names it. */
function examIdsOf(ids: LaunchIds, rosterUrl: string): { user_id: string; exam_tag: string; section_id: string; roster_url: string } {
  return { user_id: ids.userId, exam_tag: ids.examTag, section_id: ids.sectionId, roster_url: rosterUrl };
}

/** The institution's branding and domain, as the candidate and reviewer requests carry them (absent when unset). */
function institutionPartsOf(institution: Pick<InstitutionPart, 'branding' | 'domain'>, logoUrl: string | undefined): { branding?: Branding; domain?: string } {
  const branding = brandingOf(institution, logoUrl);
  return { ...(branding ? { branding } : {}), ...(institution.domain ? { domain: institution.domain } : {}) };
}

/** The exam's proctor_settings, each member defaulting from the institution's; undefined when neither sets any. */
export function proctorSettingsOf(institution: Pick<InstitutionPart, 'proctorSettings'>, exam: ProctorSettings | undefined): ProctorSettings | undefined {
  const merged: ProctorSettings = { ...institution.proctorSettings, ...(exam ?? {}) };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/**
 * The longest start of `text` within `max` characters as the contract counts them (UTF-16 code units, as
 * JavaScript's `length`), never splitting a character: a name in a script outside the Basic Multilingual
 * Plane (or with emoji) would otherwise be cut to 100 characters that the contract counts as up to 200.
 */
export function cutToLength(text: string, max: number): string {
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out;
}

/** display_name: only without Names and Roles (no roster names), cut to the API's 100 characters; never stored. */
export function displayNameFor(input: { namesRolesUrl?: string; displayName?: string }): string | undefined {
  if (input.namesRolesUrl !== undefined) return undefined;
  const name = input.displayName?.trim();
  if (!name) return undefined;
  return cutToLength(name, LIMITS.displayName.max).trim() || undefined;
}

// One mapping function per Launch API endpoint: the vendor's request from the exam's parsed settings
// document and the facts of one launch. This is the seam where another proctoring vendor would plug in:
// its own functions from the same document and facts to its own requests.

/** The facts of one candidate launch (everything but the exam's settings). */
export interface CandidateFacts {
  ids: LaunchIds;
  institution: InstitutionPart;
  attemptId: string;
  /** The tool's return endpoints for this attempt. */
  returnLinks: { graceful: string; ungraceful: string };
  rosterUrl: string;
  logoUrl?: string;
  extensionAllowlistUrl?: string;
  displayName?: string;
}

/** POST /v2/candidate/launch. */
export function candidateRequest(exam: ExamSettingsDocument, facts: CandidateFacts): CandidateLaunchRequest {
  const { ids, institution } = facts;
  const request: CandidateLaunchRequest = {
    launch_url: exam.launch_url,
    exam_start: exam.exam_start,
    exam_take: exam.exam_take,
    exam_end: exam.exam_end,
    exam_settings: exam.exam_settings,
    ...examIdsOf(ids, facts.rosterUrl),
    attempt_id: facts.attemptId,
    redirect_url: facts.returnLinks.graceful,
    redirect_settings: { graceful_submission_url: facts.returnLinks.graceful, ungraceful_submission_url: facts.returnLinks.ungraceful },
  };
  const expire = expireFor('candidate', exam.expire);
  if (expire !== undefined) request.expire = expire;
  // The exam's own pre-authentication wins; otherwise the institution's (mobile exam app).
  const preAuth = exam.pre_auth ?? institution.preAuth;
  const postAuth = exam.pre_auth ? exam.post_auth : (exam.post_auth ?? institution.postAuth);
  if (preAuth) request.pre_auth = preAuth;
  if (postAuth) request.post_auth = postAuth;
  if (exam.pre_auth_bypass !== undefined) request.pre_auth_bypass = exam.pre_auth_bypass;
  if (exam.break_settings) request.break_settings = exam.break_settings;
  Object.assign(request, institutionPartsOf(institution, facts.logoUrl));
  if (facts.extensionAllowlistUrl && institution.extensionAllowlist.length > 0) request.extension_allowlist_url = facts.extensionAllowlistUrl;
  if (facts.displayName) request.display_name = facts.displayName;
  return request;
}

/** The facts of one reviewer launch. */
export interface ReviewerFacts {
  ids: LaunchIds;
  institution: InstitutionPart;
  rosterUrl: string;
  logoUrl?: string;
}

/** POST /v2/reviewer/launch. An exam not set up yet (null) still opens the review center, with every setting off. */
export function reviewerRequest(exam: ExamSettingsDocument | null, facts: ReviewerFacts): ReviewerLaunchRequest {
  const { ids, institution } = facts;
  const request: ReviewerLaunchRequest = {
    exam_settings: exam?.exam_settings ?? EXAM_SETTINGS_OFF,
    ...examIdsOf(ids, facts.rosterUrl),
  };
  const expire = expireFor('staff', exam?.expire);
  if (expire !== undefined) request.expire = expire;
  if (exam?.behavior_settings) request.behavior_settings = exam.behavior_settings;
  Object.assign(request, institutionPartsOf(institution, facts.logoUrl));
  return request;
}

/** The facts of one live-proctoring launch. */
export interface LiveFacts {
  /** The resource link title (the exam's title). */
  examName: string;
  ids: LaunchIds;
  institution: InstitutionPart;
  rosterUrl: string;
}

/** POST /v2/live/launch. */
export function liveRequest(exam: ExamSettingsDocument | null, facts: LiveFacts): LiveLaunchRequest {
  const { ids, institution } = facts;
  const request: LiveLaunchRequest = {
    ...examIdsOf(ids, facts.rosterUrl),
  };
  const name = facts.examName.trim();
  if (name) request.exam_name = cutToLength(name, ASSUMED_LIMITS.examNameLength.max);
  const expire = expireFor('staff', exam?.expire);
  if (expire !== undefined) request.expire = expire;
  if (exam?.behavior_settings) request.behavior_settings = exam.behavior_settings;
  const proctorSettings = proctorSettingsOf(institution, exam?.proctor_settings);
  if (proctorSettings) request.proctor_settings = proctorSettings;
  return request;
}

/** The facts of one launchpad launch (a course, not one exam). */
export interface LaunchpadFacts {
  userId: string;
  institution: Pick<InstitutionPart, 'proctorSettings'>;
  examRosterUrl: string;
  rosterUrl: string;
}

/** POST /v2/live/launchpad: a course's exams for a proctor (course-level launch). */
export function launchpadRequest(facts: LaunchpadFacts): LaunchpadRequest {
  const request: LaunchpadRequest = {
    user_id: facts.userId,
    exam_roster: facts.examRosterUrl,
    roster_url: facts.rosterUrl,
  };
  const proctorSettings = proctorSettingsOf(facts.institution, undefined);
  if (proctorSettings) request.proctor_settings = proctorSettings;
  return request;
}

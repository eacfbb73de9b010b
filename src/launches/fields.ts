// Where each Launch API field comes from (the product design's table "Where each API field comes from"), as pure
// functions: no express, no ltijs, no database. The service gathers the inputs; these build the typed
// requests; the proctoring client validates them against the contract before anything is sent.
import { LIMITS, type BehaviorSettings, type Branding, type BreakSettings, type CandidateLaunchRequest, type ExamSettings, type LaunchpadRequest, type LiveLaunchRequest, type ProctorSettings, type ReviewerLaunchRequest } from '../proctoring/contract.js';
import { ASSUMED_LIMITS } from '../proctoring/assumptions.js';
import type { ExamSettingsDocument } from '../exams/settings/document.js';
import type { InstitutionSettings } from '../institution/settings.js';

/** The pseudonymous and derived ids of one launch (src/lti/identifiers.ts). */
export interface LaunchIds {
  userId: string;
  examTag: string;
  sectionId: string;
}

/** The institution (platform) settings a request uses. */
export type InstitutionPart = Pick<InstitutionSettings, 'branding' | 'domain' | 'extensionAllowlist' | 'proctorSettings' | 'preAuth' | 'postAuth'>;

/** Where the candidate goes after the exam (exam settings `tool.redirect`; default: back to the LMS). */
export type RedirectMode = 'lms' | 'message' | 'url';

/**
 * The parts of an exam's stored settings document (src/exams/settings/document.ts: the Launch API's own
 * field names plus the tool's options under `tool`) that launches use. Nested objects are passed on as
 * stored: the settings view validated them on save and the client validates every request again, so a
 * stored value that no longer passes becomes the instructor's field messages, not a 500.
 */
export interface ExamConfig extends Omit<ExamSettingsDocument, 'tool'> {
  redirect: RedirectMode;
  redirectUrl?: string;
}

type Loose = Record<string, unknown>;

const isRecord = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The exam's configuration, or undefined when the exam is not set up yet (no settings, or without the
 * four page fields and exam_settings the candidate request requires).
 */
export function examConfigOf(settings: Loose | null | undefined): ExamConfig | undefined {
  if (!settings) return undefined;
  const launchUrl = str(settings.launch_url);
  const examStart = str(settings.exam_start);
  const examTake = str(settings.exam_take);
  const examEnd = str(settings.exam_end);
  if (!launchUrl || !examStart || !examTake || !examEnd || !isRecord(settings.exam_settings)) return undefined;
  const tool = isRecord(settings.tool) ? settings.tool : {};
  const redirect: RedirectMode = tool.redirect === 'message' || tool.redirect === 'url' ? tool.redirect : 'lms';
  const config: ExamConfig = {
    launch_url: launchUrl,
    exam_start: examStart,
    exam_take: examTake,
    exam_end: examEnd,
    // Validated by the client before sending (see the comment on ExamConfig).
    exam_settings: settings.exam_settings as ExamSettings,
    redirect,
  };
  if (isRecord(settings.behavior_settings)) config.behavior_settings = settings.behavior_settings as BehaviorSettings;
  if (isRecord(settings.break_settings)) config.break_settings = settings.break_settings as BreakSettings;
  if (isRecord(settings.proctor_settings)) config.proctor_settings = settings.proctor_settings as ProctorSettings;
  if (typeof settings.expire === 'number') config.expire = settings.expire;
  if (str(settings.pre_auth)) config.pre_auth = str(settings.pre_auth);
  if (str(settings.post_auth)) config.post_auth = str(settings.post_auth);
  if (typeof settings.pre_auth_bypass === 'boolean') config.pre_auth_bypass = settings.pre_auth_bypass;
  if (redirect === 'url' && str(tool.redirect_url)) config.redirectUrl = str(tool.redirect_url);
  return config;
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

export interface CandidateInput {
  exam: ExamConfig;
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
export function candidateRequest(input: CandidateInput): CandidateLaunchRequest {
  const { exam, ids, institution } = input;
  const request: CandidateLaunchRequest = {
    launch_url: exam.launch_url,
    exam_start: exam.exam_start,
    exam_take: exam.exam_take,
    exam_end: exam.exam_end,
    exam_settings: exam.exam_settings,
    user_id: ids.userId,
    exam_tag: ids.examTag,
    section_id: ids.sectionId,
    roster_url: input.rosterUrl,
    attempt_id: input.attemptId,
    redirect_url: input.returnLinks.graceful,
    redirect_settings: { graceful_submission_url: input.returnLinks.graceful, ungraceful_submission_url: input.returnLinks.ungraceful },
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
  const branding = brandingOf(institution, input.logoUrl);
  if (branding) request.branding = branding;
  if (institution.domain) request.domain = institution.domain;
  if (input.extensionAllowlistUrl && institution.extensionAllowlist.length > 0) request.extension_allowlist_url = input.extensionAllowlistUrl;
  if (input.displayName) request.display_name = input.displayName;
  return request;
}

export interface ReviewerInput {
  /** Undefined for an exam not set up yet: the review center still opens, with every setting off. */
  exam: ExamConfig | undefined;
  ids: LaunchIds;
  institution: InstitutionPart;
  rosterUrl: string;
  logoUrl?: string;
  /** exam_settings when the exam has none (the reviewer request requires them). */
  fallbackExamSettings: ExamSettings;
}

/** POST /v2/reviewer/launch. */
export function reviewerRequest(input: ReviewerInput): ReviewerLaunchRequest {
  const { exam, ids, institution } = input;
  const request: ReviewerLaunchRequest = {
    user_id: ids.userId,
    exam_settings: exam?.exam_settings ?? input.fallbackExamSettings,
    exam_tag: ids.examTag,
    section_id: ids.sectionId,
    roster_url: input.rosterUrl,
  };
  const expire = expireFor('staff', exam?.expire);
  if (expire !== undefined) request.expire = expire;
  if (exam?.behavior_settings) request.behavior_settings = exam.behavior_settings;
  const branding = brandingOf(institution, input.logoUrl);
  if (branding) request.branding = branding;
  if (institution.domain) request.domain = institution.domain;
  return request;
}

export interface LiveInput {
  exam: ExamConfig | undefined;
  /** The resource link title (the exam's title). */
  examName: string;
  ids: LaunchIds;
  institution: InstitutionPart;
  rosterUrl: string;
}

/** POST /v2/live/launch. */
export function liveRequest(input: LiveInput): LiveLaunchRequest {
  const { exam, ids, institution } = input;
  const request: LiveLaunchRequest = {
    user_id: ids.userId,
    exam_tag: ids.examTag,
    section_id: ids.sectionId,
    roster_url: input.rosterUrl,
  };
  const name = input.examName.trim();
  if (name) request.exam_name = cutToLength(name, ASSUMED_LIMITS.examNameLength.max);
  const expire = expireFor('staff', exam?.expire);
  if (expire !== undefined) request.expire = expire;
  if (exam?.behavior_settings) request.behavior_settings = exam.behavior_settings;
  const proctorSettings = proctorSettingsOf(institution, exam?.proctor_settings);
  if (proctorSettings) request.proctor_settings = proctorSettings;
  return request;
}

export interface LaunchpadInput {
  userId: string;
  institution: Pick<InstitutionPart, 'proctorSettings'>;
  examRosterUrl: string;
  rosterUrl: string;
}

/** POST /v2/live/launchpad: a course's exams for a proctor (course-level launch). */
export function launchpadRequest(input: LaunchpadInput): LaunchpadRequest {
  const request: LaunchpadRequest = {
    user_id: input.userId,
    exam_roster: input.examRosterUrl,
    roster_url: input.rosterUrl,
  };
  const proctorSettings = proctorSettingsOf(input.institution, undefined);
  if (proctorSettings) request.proctor_settings = proctorSettings;
  return request;
}

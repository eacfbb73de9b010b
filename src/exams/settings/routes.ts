import { parseParams, parseQuery, textField } from '../../http/request-input.js';
import { z } from 'zod';
import express, { type Request, type Response, type Router } from 'express';
import { deriveUserId, type PseudonymSecret } from '../../lti/identifiers.js';
import type { LtiLaunch } from '../../lti/claims.js';
import type { RolePolicy } from '../../institution/role-policy.js';
import type { RoleDecision } from '../../lti/roles.js';
import { AppError, ForbiddenError, NotFoundError } from '../../http/errors.js';
import { wording } from '../../i18n/index.js';
import { roleRefusalWording } from '../../lti/role-words.js';
import type { Csrf } from '../../http/csrf.js';
import { requestLogger } from '../../http/request-id.js';
import type { Logger } from '../../logger.js';
import { POST_MESSAGE_NOTIFICATION } from '../../proctoring/contract.js';
import { checkExamPages } from '../../proctoring/page-check.js';
import { isExamOfCourse, isSetUp, type Exam } from '../store.js';
import { fieldId, formValues, settingsForm } from './fields.js';
import { durationInWords, LINK_MINUTES } from './durations.js';
import { requirementsForBrowser } from './prerequisites.js';
import { lmsPresetText, type DeriveResult, type ExamPages, type LmsPreset, type LmsPresetCatalog } from './presets/lms.js';
import { applySecurityPreset, SECURITY_PRESETS, securityPresetText } from './presets/security.js';
import { initialDocument, type ExamSettingsService } from './service.js';
import type { ExamSettingsDocument } from './document.js';

const PAGE_PATHS = ['launch_url', 'exam_start', 'exam_take', 'exam_end'] as const;
import { isUuid } from '../../values.js';
import { describeEntry, historyNeedsNames } from './history.js';
import type { AccommodationStore } from '../accommodations/store.js';
import { applyOverride } from '../accommodations/override.js';
import { escapeHtml, htmlMessage, pageI18n, type PageI18n } from './i18n.js';
import { scriptMessages } from './script-messages.js';
import { localizeViolation } from './violations.js';
import { timeZoneOf } from '../availability.js';
import { toolSettingFields, toolSettingsWire } from '../tool-settings/registry.js';
import type { Translate } from '../../proctoring/labels.js';

/** How many recent changes the settings page shows. */
const HISTORY_SHOWN = 10;

/** What the routes need from the LTI adapter (src/lti/provider.ts). */
export interface SessionAccess {
  launchOf(res: Response): Promise<LtiLaunch>;
  ltikOf(res: Response): string;
}

export interface SettingsRoutesDeps {
  lti: SessionAccess;
  /** Role decisions with the institution's settings (src/institution/role-policy.ts). */
  decide: RolePolicy;
  service: ExamSettingsService;
  csrf: Csrf;
  /** Per-installation secret of the pseudonymous user ids (who changed what). */
  pseudonymSecret: PseudonymSecret;
  /** The exam-page presets this installation offers. */
  lmsPresets: LmsPresetCatalog;
  /** The course's names (Names and Roles, read when the page is built), for who changed what and whose accommodation. */
  names?: (exam: Exam, logger: Logger) => Promise<{ names?: ReadonlyMap<string, string> }>;
  /** The exam's accommodations: a save says how many no longer fit the new settings. */
  accommodations?: Pick<AccommodationStore, 'list'>;
  /** Reading the course's names may log: in each request's own log (`requestLogger`). */
  logger: Logger;
}

/** The settings page's helpers (exam-page presets and checks) are for those who may edit settings. */
function refuseUnlessEditor(decision: RoleDecision): void {
  if (!decision.canEditSettings) {
    throw new ForbiddenError('Only instructors can use the exam-page presets and checks.', roleRefusalWording(decision.why, 'settings'), 'common:errors.notAllowedPresets');
  }
}

/** Staff who may edit settings, in the exam's own course (issuer, client, deployment and context). */
export function checkSettingsAccess(launch: LtiLaunch, decision: RoleDecision, exam: Exam | undefined): Exam {
  if (!decision.canEditSettings) {
    throw new ForbiddenError('Your role in this course may not change exam settings.', roleRefusalWording(decision.why, 'settings'), 'common:errors.notAllowedSettings');
  }
  if (!exam) throw new NotFoundError('exam');
  if (!isExamOfCourse(exam, launch)) throw new ForbiddenError('This exam belongs to another course. Open it from its own course.', wording('causes:launch.otherCourse'), 'common:errors.otherCourse');
  return exam;
}

/** JSON for data blocks in pages: `<` escaped so no text can close the script element. */
export function jsonForPage(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The exam's own preset; for an exam that names none, the presets that read its address. */
function presetsOf(catalog: LmsPresetCatalog, presetId: string, quizAddress: string): LmsPreset[] {
  const own = catalog.byId(presetId);
  // Another LMS's preset may read the address too (the demo LMS's reads any …/quiz/… path): it never speaks for it.
  return own ? [own] : catalog.offered.filter((preset) => preset.derive(quizAddress).ok);
}

/** The exam's preset, when it can tell the copy's quiz address. */
function suggestQuizAddress(catalog: LmsPresetCatalog, presetId: string, quizAddress: string, link: { resourceLinkId: string; contextId: string }) {
  for (const preset of presetsOf(catalog, presetId, quizAddress)) {
    const address = preset?.addressInCopy?.(quizAddress, link);
    if (preset && address && address !== quizAddress) return { presetId: preset.id, address };
  }
  return undefined;
}

/**
 * A copied exam's quiz address, as the settings page offers it: this course's address where a preset can tell it
 * (`suggestion`, one click uses it), the page listing this course's quizzes where the LMS lets the tool name it,
 * and whether the address may be confirmed as it is: only for a duplicate within the course, never for the quiz of
 * the course the settings were copied from (an exam copied before the tool recorded the course counts as such).
 */
function copiedQuizAddress(catalog: LmsPresetCatalog, exam: Exam, presetId: string, quizAddress: string, custom: Readonly<Record<string, string>>) {
  const suggestion = suggestQuizAddress(catalog, presetId, quizAddress, exam);
  const quizList = presetsOf(catalog, presetId, quizAddress)
    .map((preset) => preset.quizListInCourse?.(quizAddress, { contextId: exam.contextId, custom }))
    .find((url) => url !== undefined);
  return { suggestion, quizList, confirmable: exam.quizAddressCourse === exam.contextId };
}

/**
 * For a document that names no exam-page preset (e.g. one written by a script or the sandbox's seed): the
 * offered preset that derives exactly its pages from its launch URL, so the form shows it instead of "Custom".
 */
function recognisePreset(catalog: LmsPresetCatalog, document: Partial<ExamSettingsDocument>): string | undefined {
  const quizAddress = document.launch_url;
  if (!quizAddress) return undefined;
  const pages = PAGE_PATHS.map((path) => document[path]);
  return catalog.offered.find((preset) => {
    const derived = preset.derive(quizAddress);
    return preset.id !== 'custom' && derived.ok && PAGE_PATHS.every((path, index) => derived.pages[path] === pages[index]);
  })?.id;
}

/** Every time zone the runtime knows (IANA names), with `current` among them even if the runtime lacks it. */
function timeZoneChoices(current: string): string[] {
  const known = Intl.supportedValuesOf('timeZone');
  return known.includes(current) ? known : [current, ...known];
}

/** A derivation's answer with a refusal's sentence in the reader's language (and without the catalog key). */
function localizedDerivation(t: Translate, result: DeriveResult): { ok: true; pages: ExamPages } | { ok: false; message: string } {
  return result.ok ? result : { ok: false, message: t(result.key, result.values) };
}

const EXAM_PARAMS = z.object({ examId: z.string().default('') });
/** A pattern or address of the exam-page checks, at most 2000 characters. */
const pageField = z.string().transform((text) => text.slice(0, 2000));
const EXAM_PAGES_QUERY = z.object({ preset: textField, quiz_url: pageField.default('') });
const EXAM_PAGES_CHECK_QUERY = z.object({ launch_url: pageField.optional(), exam_start: pageField.optional(), exam_take: pageField.optional(), exam_end: pageField.optional() });

export function createExamSettingsRoutes(deps: SettingsRoutesDeps): Router {
  const router = express.Router();

  async function examFor(req: Request, res: Response): Promise<{ launch: LtiLaunch; exam: Exam }> {
    const launch = await deps.lti.launchOf(res);
    const id = parseParams(EXAM_PARAMS, req).examId;
    const exam = isUuid(id) ? await deps.service.get(id) : undefined;
    return { launch, exam: checkSettingsAccess(launch, await deps.decide(launch), exam) };
  }

  const userIdOf = (launch: LtiLaunch) => deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub);

  /** The recent changes in the reader's words, with names from the course roster where it is available. */
  async function describedHistory(req: Request, exam: Exam, me: string, i18n: PageI18n) {
    const entries = await deps.service.history(exam.id, HISTORY_SHOWN);
    const names = deps.names && historyNeedsNames(entries, me) ? (await deps.names(exam, requestLogger(deps.logger, req))).names : undefined;
    return entries.map((entry) => describeEntry(entry, me, i18n, names));
  }

  // A POST carrying the session token (hidden field `ltik`): a GET would need the token in its URL.
  async function showSettingsPage(req: Request, res: Response): Promise<void> {
    const { launch, exam } = await examFor(req, res);
    // A stored document that no longer passes is shown as stored, so the instructor can correct it.
    const document = exam.settings ?? exam.invalidSettings?.stored ?? initialDocument(launch.platformFamily, deps.lmsPresets);
    const me = userIdOf(launch);
    const i18n = pageI18n(res.locals);
    const { t } = i18n;
    const history = await describedHistory(req, exam, me, i18n);
    const base = req.baseUrl;
    const ltik = deps.lti.ltikOf(res);
    const lmsPresets = deps.lmsPresets.offered.map((preset) => ({ id: preset.id, ...lmsPresetText(t, preset), example: preset.example, limited: preset.limited }));
    const securityPresets = SECURITY_PRESETS.map((preset) => ({ ...preset, ...securityPresetText(t, preset) }));
    const form = settingsForm(t);
    const values = formValues(document);
    // A link validity stored to the second (by a script): said exactly, and kept while its minutes stay as shown.
    if (typeof document.expire === 'number' && document.expire % 60 !== 0) values['expire.note'] = t('settings:document.expire.kept', { value: durationInWords(t, document.expire) });
    const quizAddress = typeof document.launch_url === 'string' ? document.launch_url : '';
    // A copy waiting for its check: the preset's guess at this course's quiz, ready for "Fill in the pages".
    const recognised = values['tool.lms_preset'] === '' ? recognisePreset(deps.lmsPresets, document) : undefined;
    if (recognised) Object.assign(values, { 'tool.lms_preset': recognised, 'tool.quiz_url': quizAddress });
    const copied = exam.quizAddressCheck ? copiedQuizAddress(deps.lmsPresets, exam, String(values['tool.lms_preset']), quizAddress, launch.custom) : undefined;
    const suggestion = copied?.suggestion;
    const suggested = suggestion?.address;
    if (suggestion) Object.assign(values, { 'tool.lms_preset': suggestion.presetId, 'tool.quiz_url': suggestion.address });
    const zone = exam.timeZone ?? timeZoneOf(launch);
    res.set('Cache-Control', 'no-store');
    res.render('exams/settings', {
      toolFields: toolSettingFields(t, exam, zone),
      timeZones: timeZoneChoices(zone),
      t,
      html: (key: string, values: Readonly<Record<string, string>>) => htmlMessage(t, key, values),
      escape: escapeHtml,
      lang: i18n.locale,
      dir: i18n.dir,
      title: t('settings:page.title', { exam: exam.title }),
      skipToActions: t('settings:page.skipToSave'),
      exam: { id: exam.id, title: exam.title, status: exam.status, configured: isSetUp(exam), quizAddressCheck: exam.quizAddressCheck },
      quizAddress,
      suggestedQuizAddress: suggested,
      quizAddressConfirmable: copied?.confirmable === true,
      courseQuizList: copied?.quizList,
      confirmQuizAddressUrl: `${base}/exams/${exam.id}/settings/quiz-address`,
      settingsUrl: `${base}/exams/${exam.id}/settings`,
      hubUrl: `${base}/hub/${exam.id}`,
      values,
      ...form,
      lmsPresets,
      securityPresets,
      history,
      fieldId,
      csrfToken: deps.csrf.tokenFor(req, res),
      ltik,
      pageData: jsonForPage({
        examId: exam.id,
        apiUrl: `${base}/api/exams/${exam.id}/settings`,
        deriveUrl: `${base}/api/exam-pages`,
        checkUrl: `${base}/api/exam-pages/check`,
        requirements: requirementsForBrowser(t),
        securityPresets: securityPresets.map((preset) => {
          const applied = applySecurityPreset(preset);
          return { id: preset.id, label: preset.label, exam_settings: applied.exam_settings, chosen: Object.keys(preset.choices), behavior: preset.behavior ?? null };
        }),
        lmsPresets,
        postMessage: POST_MESSAGE_NOTIFICATION,
        linkMinutes: LINK_MINUTES,
        // The script's sentences: ICU templates of the reader's language (settings:script.*).
        ...scriptMessages(i18n.locale),
      }),
    });
  }
  router.post('/exams/:examId/settings', showSettingsPage);

  // The copy's one click: this course's address where a preset tells it (saved with its pages), else "this quiz
  // address is this course's" for a duplicate within the course; never the quiz of the course copied from.
  router.post('/exams/:examId/settings/quiz-address', express.urlencoded({ extended: false, limit: '8kb' }), deps.csrf.protect, async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    const document = exam.settings;
    const presetId = typeof document?.tool?.lms_preset === 'string' ? document.tool.lms_preset : '';
    const copied = exam.quizAddressCheck && document ? copiedQuizAddress(deps.lmsPresets, exam, presetId, document.launch_url, launch.custom) : undefined;
    const derived = copied?.suggestion ? deps.lmsPresets.derive(copied.suggestion.presetId, copied.suggestion.address) : undefined;
    if (document && copied?.suggestion && derived?.ok) {
      const tool = { ...document.tool, lms_preset: copied.suggestion.presetId, quiz_url: copied.suggestion.address };
      const saved = await deps.service.save(exam.id, { settings: { ...document, ...derived.pages, tool } }, { userId: userIdOf(launch) });
      if (!saved.ok) throw new AppError(409, 'quiz_address_unusable', 'Quiz address not used', "This course's quiz address could not be used: paste it under the exam pages and save.", { messageKey: 'common:errors.quizAddressUnusable' });
    } else if (copied && !copied.confirmable) {
      throw new AppError(409, 'quiz_address_of_other_course', 'Another course’s quiz', "This quiz address belongs to the course the settings were copied from: paste this course's quiz address instead.", { messageKey: 'common:errors.quizAddressOtherCourse' });
    } else {
      await deps.service.confirmQuizAddress(exam.id, { userId: userIdOf(launch) });
    }
    // The settings page again, answered to this POST: the session token stays out of URLs.
    await showSettingsPage(req, res);
  });

  router.get('/api/exams/:examId/settings', async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    res.set('Cache-Control', 'no-store').json({
      exam: { id: exam.id, title: exam.title, status: exam.status, configured: isSetUp(exam), quizAddressCheck: exam.quizAddressCheck },
      settings: exam.settings ?? exam.invalidSettings?.stored ?? initialDocument(launch.platformFamily, deps.lmsPresets),
      status: exam.status,
      ...toolSettingsWire(exam, timeZoneOf(launch)),
    });
  });

  router.put('/api/exams/:examId/settings', deps.csrf.protect, async (req, res) => {
    const { launch, exam } = await examFor(req, res);
    // The page confirms how many attempts ran under the old settings; without that number the answer asks for it.
    const confirmed = Number(req.get('x-confirm-attempts'));
    const result = await deps.service.save(exam.id, req.body, { userId: userIdOf(launch), confirmAttempts: Number.isInteger(confirmed) && confirmed > 0 ? confirmed : 'ask' });
    const i18n = pageI18n(res.locals);
    if (!result.ok && result.attemptsToConfirm !== undefined) {
      const attempts = result.attemptsToConfirm;
      throw new AppError(409, 'confirm_attempts', 'Attempts ran under these settings', `${attempts} attempts ran under the current settings: confirm to change them.`, {
        details: { attempts, confirm: i18n.t('settings:confirmAttempts.question', { count: attempts }), button: i18n.t('settings:confirmAttempts.button') },
        messageKey: 'common:errors.confirmAttempts',
        messageValues: { count: attempts },
      });
    }
    if (!result.ok) {
      // Each violation's sentence in the reader's language: the page shows them beside the fields.
      const violations = result.violations.map((violation) => localizeViolation(i18n.t, violation));
      throw new AppError(422, 'invalid_settings', 'Invalid settings', 'Some settings need your attention: nothing was saved.', { details: { violations }, messageKey: 'common:errors.invalidSettings' });
    }
    // The recent changes as the page shows them, so "Recent changes" is current right after a save.
    const me = userIdOf(launch);
    const history = await describedHistory(req, exam, me, i18n);
    // Saving is never blocked by an accommodation; the instructor learns which ones need attention in the hub.
    const unfit = deps.accommodations ? (await deps.accommodations.list(exam.id)).filter((entry) => !applyOverride(result.settings, entry.override).ok).length : 0;
    res
      .set('Cache-Control', 'no-store')
      .json({
        ...(unfit > 0 ? { accommodationWarning: i18n.t('accommodations:settingsWarning', { count: unfit }) } : {}),
        exam: { id: result.exam.id, title: result.exam.title, status: result.exam.status, configured: true },
        settings: result.settings,
        status: result.exam.status,
        ...toolSettingsWire(result.exam, timeZoneOf(launch)),
        history,
      });
  });

  router.get('/api/exams/:examId/settings/history', async (req, res) => {
    const { exam } = await examFor(req, res);
    res.set('Cache-Control', 'no-store').json({ changes: await deps.service.history(exam.id, 50) });
  });

  // The exam-page presets, for the form's live preview (the derivation stays in one place, on the server).
  router.get('/api/exam-pages', async (req, res) => {
    const launch = await deps.lti.launchOf(res);
    refuseUnlessEditor(await deps.decide(launch));
    const { preset, quiz_url: quizUrl } = parseQuery(EXAM_PAGES_QUERY, req);
    res.set('Cache-Control', 'no-store').json(localizedDerivation(pageI18n(res.locals).t, deps.lmsPresets.derive(preset, quizUrl)));
  });

  // The form's live pattern check: patterns are evaluated here, never by the browser's own engine.
  router.get('/api/exam-pages/check', async (req, res) => {
    const launch = await deps.lti.launchOf(res);
    refuseUnlessEditor(await deps.decide(launch));
    const { t } = pageI18n(res.locals);
    const check = checkExamPages(parseQuery(EXAM_PAGES_CHECK_QUERY, req));
    // Each problem framed in the reader's language; the pattern engine's detail stays as it is (technical).
    const problems = Object.fromEntries(Object.entries(check.problems).map(([field, detail]) => [field, t('settings:validation.badPattern', { detail })]));
    res.set('Cache-Control', 'no-store').json({ ...check, problems });
  });

  return router;
}


import { z } from 'zod';
import { parseBody, textField } from '../../http/request-input.js';
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Database } from '../../db/types.js';
import { ForbiddenError } from '../../http/errors.js';
import type { Wording } from '../../i18n/index.js';
import { roleReasonWording } from '../../lti/role-words.js';
import type { Csrf } from '../../http/csrf.js';
import type { LtiLaunch } from '../../lti/claims.js';
import { examResourceLink, type DeepLinkingResponse, type LtiResourceLinkItem } from '../../lti/deep-linking.js';
import { deriveUserId, type PseudonymSecret } from '../../lti/identifiers.js';
import type { RolePolicy } from '../../institution/role-policy.js';
import type { RoleDecision } from '../../lti/roles.js';
import type { Violation } from '../../proctoring/contract.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX } from '../course-copy.js';
import { createExamStore } from '../store.js';
import { createSettingsChangeLog } from './changes.js';
import { diffSettings, validateSettingsDocument, type ExamSettingsDocument } from './document.js';
import { deriveExamPages, lmsPresetText, type LmsPresetCatalog } from './presets/lms.js';
import { SETTINGS_DOCUMENT_VERSION } from './versions.js';
import { applySecurityPreset, securityPreset, SECURITY_PRESETS, securityPresetText } from './presets/security.js';
import type { SessionAccess } from './routes.js';
import { ENGLISH, escapeHtml, htmlMessage, pageI18n } from './i18n.js';
import { localizeViolation } from './violations.js';
import type { Translate } from '../../proctoring/labels.js';

/** A form field of the picker, at most 2000 characters (a quiz address is the longest). */
const pickerField = textField.transform((text) => text.slice(0, 2000));
const DEEP_LINKING_FORM = z.object({ title: pickerField, lms_preset: pickerField, quiz_url: pickerField, security_preset: pickerField });

export interface DeepLinkingDeps {
  lti: SessionAccess & { deepLinkingResponse(res: Response, items: LtiResourceLinkItem[], options?: { message?: string }): Promise<DeepLinkingResponse> };
  db: Database;
  /** Role decisions with the institution's settings (src/institution/role-policy.ts). */
  decide: RolePolicy;
  csrf: Csrf;
  pseudonymSecret: PseudonymSecret;
  /** The exam-page presets this installation offers. */
  lmsPresets: LmsPresetCatalog;
  /** The tool's launch URL (target of the returned resource link). */
  launchUrl: string;
}

export interface DeepLinkingForm {
  title: string;
  lms_preset: string;
  quiz_url: string;
  security_preset: string;
}

export type DeepLinkingPlan =
  | { ok: true; title: string; settings: ExamSettingsDocument | null }
  | { ok: false; errors: Array<{ field: keyof DeepLinkingForm; message: string }> };

const FORM_FIELD_OF: Record<string, keyof DeepLinkingForm> = { launch_url: 'quiz_url', exam_start: 'quiz_url', exam_take: 'lms_preset', exam_end: 'lms_preset' };

/**
 * From the content-picker form to the new exam's title and settings (pure). An empty quiz address
 * creates the exam unconfigured: its settings are finished in the settings view.
 */
export function planDeepLinkedExam(form: DeepLinkingForm, derive: LmsPresetCatalog['derive'] = deriveExamPages, t: Translate = ENGLISH.t): DeepLinkingPlan {
  const errors: Array<{ field: keyof DeepLinkingForm; message: string }> = [];
  const title = form.title.trim();
  if (!title) errors.push({ field: 'title', message: t('deep-linking:errors.titleMissing') });
  if (title.length > 255) errors.push({ field: 'title', message: t('deep-linking:errors.titleTooLong') });
  const security = securityPreset(form.security_preset);
  if (!security) errors.push({ field: 'security_preset', message: t('deep-linking:errors.presetMissing') });
  const quizUrl = form.quiz_url.trim();
  if (!quizUrl) return errors.length > 0 || !security ? { ok: false, errors } : { ok: true, title, settings: null };

  const derived = derive(form.lms_preset, quizUrl);
  if (!derived.ok) errors.push({ field: 'quiz_url', message: t(derived.key, derived.values) });
  if (derived.ok && (!derived.pages.exam_take || !derived.pages.exam_end)) {
    errors.push({ field: 'lms_preset', message: t('deep-linking:errors.customNeedsPages') });
  }
  if (errors.length > 0 || !derived.ok || !security) return { ok: false, errors };
  const applied = applySecurityPreset(security);
  const document: ExamSettingsDocument = {
    version: SETTINGS_DOCUMENT_VERSION,
    ...derived.pages,
    exam_settings: applied.exam_settings,
    ...(security.behavior ? { behavior_settings: security.behavior } : {}),
    tool: { lms_preset: form.lms_preset, quiz_url: quizUrl, security_preset: security.id, redirect: 'lms' },
  };
  const checked = validateSettingsDocument(document);
  if (!checked.ok) {
    return { ok: false, errors: checked.violations.map((v: Violation) => ({ field: FORM_FIELD_OF[v.path] ?? 'quiz_url', message: localizeViolation(t, v).message })) };
  }
  return { ok: true, title, settings: checked.value };
}

/** A refusal of the deep-linking flow, in the user's language (`deep-linking:refusals.<name>`). */
function refusal(name: string, english: string, cause?: Wording): ForbiddenError {
  return new ForbiddenError(english, cause, `deep-linking:refusals.${name}`);
}

function canAddExams(launch: LtiLaunch, decision: RoleDecision): void {
  if (!decision.canEditSettings || !launch.context) {
    throw refusal('notInstructor', 'Only the instructors of a course can add proctored exams to it.', roleReasonWording(decision.why));
  }
}

/**
 * The deep-linking flow: the LMS's content picker opens a form (title, quiz address and LMS preset,
 * security preset); submitting it creates the exam and returns a signed LtiDeepLinkingResponse with one
 * resource link carrying the exam id (custom parameter proctor_exam_id). Until the LMS launches that
 * link, the exam sits on a placeholder resource link id (course-copy.ts claims it on first launch).
 */
export function createDeepLinkingHandler(deps: DeepLinkingDeps) {
  function render(req: Request, res: Response, launch: LtiLaunch, form: DeepLinkingForm, errors: Array<{ field: string; message: string }>, status = 200): void {
    res.set('Cache-Control', 'no-store').status(status);
    const i18n = pageI18n(res.locals);
    res.render('deep-linking/form', {
      t: i18n.t,
      html: (key: string, values: Readonly<Record<string, string>>) => htmlMessage(i18n.t, key, values),
      escape: escapeHtml,
      lang: i18n.locale,
      dir: i18n.dir,
      title: i18n.t('deep-linking:title'),
      courseTitle: launch.context?.title ?? launch.context?.label ?? i18n.t('deep-linking:thisCourse'),
      form,
      errors,
      // Each preset's name and description in the reader's language, as on the settings page.
      lmsPresets: deps.lmsPresets.offered.map((preset) => ({ id: preset.id, ...lmsPresetText(i18n.t, preset) })),
      securityPresets: SECURITY_PRESETS.map((preset) => ({ id: preset.id, ...securityPresetText(i18n.t, preset) })),
      action: '/lti/deep-linking/exams',
      ltik: deps.lti.ltikOf(res),
      csrfToken: deps.csrf.tokenFor(req, res),
    });
  }

  const router: Router = express.Router();
  router.post('/deep-linking/exams', deps.csrf.protect, async (req, res) => {
    const launch = await deps.lti.launchOf(res);
    if (launch.messageType !== 'LtiDeepLinkingRequest') throw refusal('notFromPicker', 'Open “Add a proctored exam” from your course’s content picker.');
    canAddExams(launch, await deps.decide(launch));
    const form: DeepLinkingForm = parseBody(DEEP_LINKING_FORM, req);
    const i18n = pageI18n(res.locals);
    const plan = planDeepLinkedExam(form, deps.lmsPresets.derive, i18n.t);
    if (!plan.ok) {
      render(req, res, launch, form, plan.errors, 422);
      return;
    }
    const context = launch.context;
    if (!context) throw refusal('noCourse', 'This launch has no course.');
    const exam = await deps.db.transaction(async (tx) => {
      const store = createExamStore(tx);
      const created = await store.ensure(
        { issuer: launch.issuer, clientId: launch.clientId, deploymentId: launch.deploymentId, contextId: context.id, resourceLinkId: `${DEEP_LINK_PLACEHOLDER_PREFIX}${randomUUID()}` },
        plan.title,
      );
      if (plan.settings) {
        await store.saveSettings(created.id, plan.settings);
        await createSettingsChangeLog(tx).record(created.id, {
          userId: deriveUserId(deps.pseudonymSecret, launch.issuer, launch.userSub),
          source: 'deep-linking',
          changes: diffSettings(null, plan.settings),
        });
      }
      return created;
    });
    // The link's text and the message are shown by the LMS, to the instructor, in the instructor's language.
    const item = examResourceLink({ title: plan.title, text: i18n.t('deep-linking:linkText'), launchUrl: deps.launchUrl, examId: exam.id });
    const response = await deps.lti.deepLinkingResponse(res, [item], { message: i18n.t('deep-linking:added', { exam: plan.title }) });
    res.set('Cache-Control', 'no-store').render('deep-linking/return', { t: i18n.t, lang: i18n.locale, dir: i18n.dir, title: i18n.t('deep-linking:returningTitle'), response, examTitle: plan.title });
  });

  return {
    router,
    /** A verified LtiDeepLinkingRequest (app.ts dispatches it here from onLaunch). */
    async handle(launch: LtiLaunch, req: Request, res: Response): Promise<void> {
      canAddExams(launch, await deps.decide(launch));
      render(req, res, launch, { title: '', lms_preset: deps.lmsPresets.forPlatform(launch.platformFamily).id, quiz_url: '', security_preset: 'standard' }, []);
    },
  };
}


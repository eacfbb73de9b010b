import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Database } from '../../db/types.js';
import { ForbiddenError } from '../../http/errors.js';
import type { Csrf } from '../../http/csrf.js';
import type { LtiLaunch } from '../../lti/claims.js';
import { examResourceLink, type DeepLinkingResponse, type LtiResourceLinkItem } from '../../lti/deep-linking.js';
import { deriveUserId } from '../../lti/identifiers.js';
import type { RolePolicy } from '../../institution/role-policy.js';
import type { RoleDecision } from '../../lti/roles.js';
import type { Violation } from '../../proctoring/contract.js';
import { DEEP_LINK_PLACEHOLDER_PREFIX } from '../course-copy.js';
import { createExamStore } from '../store.js';
import { createSettingsChangeLog } from './changes.js';
import { diffSettings, validateSettingsDocument, type ExamSettingsDocument } from './document.js';
import { deriveExamPages, type LmsPresetCatalog } from './presets/lms.js';
import { SETTINGS_DOCUMENT_VERSION } from './versions.js';
import { applySecurityPreset, securityPreset, SECURITY_PRESETS } from './presets/security.js';
import type { SessionAccess } from './routes.js';

export interface DeepLinkingDeps {
  lti: SessionAccess & { deepLinkingResponse(res: Response, items: LtiResourceLinkItem[], options?: { message?: string }): Promise<DeepLinkingResponse> };
  db: Database;
  /** Role decisions with the institution's settings (src/institution/role-policy.ts). */
  decide: RolePolicy;
  csrf: Csrf;
  pseudonymSecret: string;
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
export function planDeepLinkedExam(form: DeepLinkingForm, derive: LmsPresetCatalog['derive'] = deriveExamPages): DeepLinkingPlan {
  const errors: Array<{ field: keyof DeepLinkingForm; message: string }> = [];
  const title = form.title.trim();
  if (!title) errors.push({ field: 'title', message: 'Give the exam a title: students see it in the course.' });
  if (title.length > 255) errors.push({ field: 'title', message: 'The title may be at most 255 characters long.' });
  const security = securityPreset(form.security_preset);
  if (!security) errors.push({ field: 'security_preset', message: 'Choose a security preset.' });
  const quizUrl = form.quiz_url.trim();
  if (!quizUrl) return errors.length > 0 || !security ? { ok: false, errors } : { ok: true, title, settings: null };

  const derived = derive(form.lms_preset, quizUrl);
  if (!derived.ok) errors.push({ field: 'quiz_url', message: derived.message });
  if (derived.ok && (!derived.pages.exam_take || !derived.pages.exam_end)) {
    errors.push({ field: 'lms_preset', message: 'With “Custom”, the exam pages must be written by hand: leave the quiz address empty here and fill in the pages in the exam’s settings afterwards.' });
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
    return { ok: false, errors: checked.violations.map((v: Violation) => ({ field: FORM_FIELD_OF[v.path] ?? 'quiz_url', message: v.message })) };
  }
  return { ok: true, title, settings: checked.value };
}

function canAddExams(launch: LtiLaunch, decision: RoleDecision): void {
  if (!decision.canEditSettings || !launch.context) {
    throw new ForbiddenError('Only the instructors of a course can add proctored exams to it.', decision.reason);
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
    res.render('deep-linking/form', {
      title: 'Add a proctored exam',
      courseTitle: launch.context?.title ?? launch.context?.label ?? 'this course',
      form,
      errors,
      lmsPresets: deps.lmsPresets.offered,
      securityPresets: SECURITY_PRESETS,
      action: '/lti/deep-linking/exams',
      ltik: deps.lti.ltikOf(res),
      csrfToken: deps.csrf.tokenFor(req, res),
    });
  }

  const router: Router = express.Router();
  router.post('/deep-linking/exams', deps.csrf.protect, async (req, res) => {
    const launch = await deps.lti.launchOf(res);
    if (launch.messageType !== 'LtiDeepLinkingRequest') throw new ForbiddenError('Open “Add a proctored exam” from your course’s content picker.');
    canAddExams(launch, await deps.decide(launch));
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, 2000) : '');
    const form: DeepLinkingForm = { title: text('title'), lms_preset: text('lms_preset'), quiz_url: text('quiz_url'), security_preset: text('security_preset') };
    const plan = planDeepLinkedExam(form, deps.lmsPresets.derive);
    if (!plan.ok) {
      render(req, res, launch, form, plan.errors, 422);
      return;
    }
    const context = launch.context;
    if (!context) throw new ForbiddenError('This launch has no course.');
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
    const item = examResourceLink({ title: plan.title, text: 'Proctored exam', launchUrl: deps.launchUrl, examId: exam.id });
    const response = await deps.lti.deepLinkingResponse(res, [item], { message: `Added the proctored exam “${plan.title}”.` });
    res.set('Cache-Control', 'no-store').render('deep-linking/return', { title: 'Adding the exam to your course…', response, examTitle: plan.title });
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


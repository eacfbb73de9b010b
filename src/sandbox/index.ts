import express, { type Router } from 'express';
import type { Region } from '../config.js';
import type { ExamStore } from '../exams/store.js';
import type { InstitutionSettingsStore } from '../institution/settings.js';
import type { Logger } from '../logger.js';
import { LTI_ROUTES, type LtiAdapter } from '../lti/provider.js';
import { EXAM_SETTINGS_OFF } from '../proctoring/contract.js';
import { SETTINGS_DOCUMENT_VERSION } from '../exams/settings/versions.js';
import type { LmsPreset } from '../exams/settings/presets/lms.js';
import { createDemoLms, ROLE, type DemoLms } from './demo-lms/index.js';
import { demoLmsPreset } from './demo-lms/preset.js';
import { createEmulator } from './emulator/index.js';

/** The sandbox's own proctoring account: its key is public on purpose; it works only against the emulator. */
export const SANDBOX_ACCOUNT = { consumerKey: 'sandbox-consumer', secret: 'sandbox-secret', region: 'US', active: true } as const;

export interface Sandbox {
  router: Router;
  proctoringBaseUrl: string;
  region: Region;
  credentials: { consumerKey: string; secret: string };
  emulator: ReturnType<typeof createEmulator>;
  demoLms: DemoLms;
  /** Exam-page presets the sandbox adds to the tool's: its demo LMS's quiz. */
  lmsPresets: readonly LmsPreset[];
}

/**
 * Sandbox mode (no proctoring credentials, not production): the Launch API emulator and a demo LMS,
 * registered with the tool at start-up, with its demo exam configured, so every flow can be clicked
 * through with one command.
 */
export async function createSandbox(deps: { baseUrl: string; lti: LtiAdapter; exams: ExamStore; institutions: InstitutionSettingsStore; logger: Logger }): Promise<Sandbox> {
  const proctoringBaseUrl = `${deps.baseUrl}/sandbox/proctoring`;
  const emulator = createEmulator({
    publicBaseUrl: proctoringBaseUrl,
    accounts: [{ consumerKey: SANDBOX_ACCOUNT.consumerKey, secret: SANDBOX_ACCOUNT.secret, region: SANDBOX_ACCOUNT.region, active: true }],
    region: SANDBOX_ACCOUNT.region,
  });
  const demoLms = await createDemoLms({
    issuer: `${deps.baseUrl}/sandbox/lms`,
    tool: {
      loginUrl: `${deps.baseUrl}${LTI_ROUTES.login}`,
      launchUrl: `${deps.baseUrl}${LTI_ROUTES.launch}`,
      jwksUrl: `${deps.baseUrl}${LTI_ROUTES.keys}`,
    },
  });
  const registration = demoLms.registration;
  await deps.lti.platforms.register({
    issuer: registration.issuer,
    clientId: registration.clientId,
    name: 'Demo LMS (sandbox)',
    authUrl: registration.authUrl,
    tokenUrl: registration.tokenUrl,
    key: { jwksUrl: registration.jwksUrl },
    deploymentIds: registration.deploymentIds,
  });
  await seedDemoExam(deps, demoLms);
  await seedProctorRole(deps, demoLms);
  await seedProctoringServices(deps, demoLms);

  const router = express.Router();
  router.use('/proctoring', emulator.router);
  router.use('/lms', demoLms.router);
  deps.logger.info({ course: `${deps.baseUrl}/sandbox/lms/` }, 'sandbox mode: demo LMS and Launch API emulator ready');
  return { router, proctoringBaseUrl, region: SANDBOX_ACCOUNT.region, credentials: { consumerKey: SANDBOX_ACCOUNT.consumerKey, secret: SANDBOX_ACCOUNT.secret }, emulator, demoLms, lmsPresets: [demoLmsPreset] };
}

/** The demo course's exam, configured like a Moodle quiz on the demo LMS, unless someone changed it. */
export async function seedDemoExam(deps: { exams: ExamStore }, demoLms: Pick<DemoLms, 'registration'> & { course: { id: string; exam: { id: string; title: string } } }): Promise<void> {
  const { registration, course } = demoLms;
  const deploymentId = registration.deploymentIds[0];
  if (!deploymentId) return;
  const exam = await deps.exams.ensure(
    {
      issuer: registration.issuer,
      clientId: registration.clientId,
      deploymentId,
      contextId: course.id,
      resourceLinkId: course.exam.id,
    },
    course.exam.title,
  );
  if (exam.settings) return;
  const quizUrl = `${registration.issuer}/quiz/${encodeURIComponent(course.exam.id)}`;
  const derived = demoLmsPreset.derive(quizUrl);
  if (!derived.ok) throw new Error(`the demo exam's quiz address: ${derived.message}`);
  await deps.exams.saveSettings(exam.id, {
    version: SETTINGS_DOCUMENT_VERSION,
    ...derived.pages,
    exam_settings: {
      ...EXAM_SETTINGS_OFF,
      record_video: true,
      record_audio: true,
      record_screen: true,
      record_desk: 2,
      verify_video: true,
      verify_audio: true,
      verify_desktop: true,
      verify_id: 1,
      verify_signature: true,
      disable_clipboard: true,
      tabs: 1,
      close_tabs: true,
      one_screen: true,
      disable_printing: true,
      block_downloads: true,
      disable_right_click: true,
    },
    tool: { lms_preset: demoLmsPreset.id, quiz_url: quizUrl, redirect: 'lms' },
  });
}

/**
 * The demo institution names the course role its proctors have, so "Open the exam as a proctor" reaches
 * live monitoring out of the box: Canvas sends a custom "Proctor" role as its base role, ContentDeveloper
 * (a Designer-based role). Left alone once an administrator chose proctor roles.
 */
async function seedProctorRole(deps: { institutions: InstitutionSettingsStore }, demoLms: DemoLms): Promise<void> {
  const { issuer, clientId } = demoLms.registration;
  const settings = await deps.institutions.get(issuer, clientId);
  if (settings.proctorRoles.length > 0) return;
  await deps.institutions.update(issuer, clientId, { proctorRoles: [ROLE.contentDeveloper] });
}

/**
 * The demo LMS's Learn Ultra-like flavour starts the exam through LTI Proctoring Services: its quiz pages are the
 * demo LMS's own (`{origin}` is the demo LMS's address), and the end is its LtiEndAssessment. Left alone once an
 * administrator chose.
 */
async function seedProctoringServices(deps: { institutions: InstitutionSettingsStore }, demoLms: DemoLms): Promise<void> {
  const { issuer, clientId } = demoLms.registration;
  const settings = await deps.institutions.get(issuer, clientId);
  if (settings.proctoringServices.lms) return;
  const path = new URL(issuer).pathname.replace(/\/+$/, '');
  await deps.institutions.update(issuer, clientId, { proctoringServices: { ...settings.proctoringServices, lms: 'custom', examTake: `^{origin}${path}/quiz/.*` } });
}

import assert from 'node:assert/strict';
import { createExamStore, type Exam, type ExamKey } from '../../src/exams/store.js';
import type { TestApp } from './app.js';
import { launch, type Agent } from './lti-flow.js';

/** The content of a page's `<meta name=…>`. */
export const metaContent = (html: string, name: string) => new RegExp(`<meta name="${name}" content="([^"]+)"`).exec(html)?.[1] ?? '';

export interface SettingsInstructor {
  agent: Agent;
  ltik: string;
  /** The settings page's CSRF token, for the settings API's writes. */
  csrf: string;
}

/** The sandbox's demo exam, and a Moodle-like instructor who has opened its settings page (launched in `locale`, English by default). */
export async function openDemoExamSettings(app: TestApp, options: { locale?: string } = {}): Promise<{ exam: Exam; key: ExamKey; instructor: SettingsInstructor }> {
  const lms = app.tool.sandbox!.demoLms;
  const key = { issuer: lms.registration.issuer, clientId: lms.registration.clientId, deploymentId: '1', contextId: lms.course.id, resourceLinkId: lms.course.exam.id };
  const exam = await createExamStore(app.db).find(key);
  assert.ok(exam, 'the sandbox created its demo exam');
  const { auth, ltik } = await launch(app, { user: 'instructor', flavor: 'moodle', presentation: 'window', ...(options.locale ? { locale: options.locale } : {}) });
  const page = await auth.agent.post(`/lti/exams/${exam.id}/settings`).type('form').send({ ltik });
  assert.equal(page.status, 200, page.text.slice(0, 500));
  const csrf = metaContent(page.text, 'csrf-token');
  assert.ok(csrf, 'the page carries a CSRF token');
  return { exam, key, instructor: { agent: auth.agent, ltik, csrf } };
}

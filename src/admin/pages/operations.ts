import { z } from 'zod';
import { optionalText, parseBody, parseQuery, textField, trimmedField } from '../../http/request-input.js';
import type { Request, Response } from 'express';
import { exportExams, importExams, previewImport } from '../../exams/transfer.js';
import { coursesWithoutNamesAndRoles, LAUNCH_OUTCOMES, listExams, searchLaunches } from '../operations.js';
import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';
import { fileTooLarge, UPLOAD_MAX_BYTES, uploadedFile } from '../../http/uploads.js';

/** A search field: trimmed, at most 200 characters. */
const searchText = trimmedField.transform((text) => text.slice(0, 200));
const LAUNCH_SEARCH = z.object({ incident: searchText, course: searchText, exam: searchText, outcome: searchText, from: searchText, to: searchText });
const EXAM_SEARCH = z.object({ q: searchText, done: optionalText, created: searchText, updated: searchText });
const EXPORT_QUERY = z.object({ issuer: searchText, course: searchText });
const IMPORT_FORM = z.object({ json: textField });
const IMPORT_CONFIRM_FORM = z.object({ json: textField, overwrite: textField });

/** A `datetime-local` value (taken as UTC) or an ISO date; undefined when empty or unreadable. */
function timeOf(value: string): Date | undefined {
  if (!value) return undefined;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The launch log, searchable by incident id, course, exam, outcome and time. */
export const launchesPage = adminPage(
  { id: 'launches', path: '/launches', navOrder: 40 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const { incident, ...fields } = parseQuery(LAUNCH_SEARCH, req);
      const search = { incidentId: incident, ...fields };
      const outcome = LAUNCH_OUTCOMES.find((known) => known === search.outcome);
      const rows = await searchLaunches(context.db, {
        incidentId: search.incidentId || undefined,
        course: search.course || undefined,
        exam: search.exam || undefined,
        outcome,
        from: timeOf(search.from),
        to: timeOf(search.to),
      });
      context.render(req, res, 'admin/operations/launches', { title: textOf(res)('admin:launches.title'), search, rows, outcomes: LAUNCH_OUTCOMES });
    });
  },
);

/** Courses whose roster cannot be read, or comes without names. */
export const rosterProblemsPage = adminPage(
  { id: 'roster-problems', path: '/roster', navOrder: 50 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const problems = await context.contexts.rosterProblems(200);
      const withoutService = await coursesWithoutNamesAndRoles(context.db);
      context.render(req, res, 'admin/operations/roster', { title: textOf(res)('admin:roster.title'), problems, withoutService });
    });
  },
);

/** Every exam across courses, with export to and import from the JSON file of the CLI (all or nothing). */
export const examsPage = adminPage(
  { id: 'exams', path: '/exams', navOrder: 60 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const { q: text, done, created, updated } = parseQuery(EXAM_SEARCH, req);
      const exams = await listExams(context.db, { text: text || undefined });
      const importCounts = done === 'exams-imported' ? { created: Number(created) || 0, updated: Number(updated) || 0 } : undefined;
      context.render(req, res, 'admin/operations/exams', { title: textOf(res)('admin:exams.title'), exams, q: text, result: undefined, importCounts });
    });

    routes.get('/export', async (req, res) => {
      const { issuer, course } = parseQuery(EXPORT_QUERY, req);
      const file = await exportExams(context.db, { issuer: issuer || undefined, contextId: course || undefined });
      res.set('Content-Disposition', `attachment; filename="exams-${file.exported_at.slice(0, 10)}.json"`);
      res.type('application/json').send(`${JSON.stringify(file, null, 2)}\n`);
    });

    const renderImport = (req: Request, res: Response, status: number, locals: Record<string, unknown>) => {
      res.status(status);
      context.render(req, res, 'admin/operations/exams', { title: textOf(res)('admin:exams.title'), exams: [], q: '', result: undefined, skipList: true, ...locals });
    };

    /** An exams file pasted as text is held to the cap of the file itself (the form's limit leaves room for its other fields). */
    const pastedFile = (text: string): string => {
      if (Buffer.byteLength(text, 'utf8') > UPLOAD_MAX_BYTES) throw fileTooLarge();
      return text;
    };

    /** The file's text parsed, or the page that says why it cannot be. */
    const parsedFile = (req: Request, res: Response, text: string): { ok: true; value: unknown } | { ok: false } => {
      if (!text.trim()) {
        renderImport(req, res, 400, { result: { ok: false, message: textOf(res)('admin:exams.chooseFile') } });
        return { ok: false };
      }
      try {
        return { ok: true, value: JSON.parse(text) };
      } catch (error) {
        renderImport(req, res, 400, { result: { ok: false, message: textOf(res)('admin:exams.notJson', { detail: error instanceof Error ? error.message : String(error) }) } });
        return { ok: false };
      }
    };

    // An import is a dry run first: every check, and which exams it would create and which it would overwrite.
    routes.post('/import', async (req, res) => {
      const upload = uploadedFile(req, 'file');
      const text = upload ? upload.toString('utf8') : pastedFile(parseBody(IMPORT_FORM, req).json);
      const file = parsedFile(req, res, text);
      if (!file.ok) return;
      const preview = await previewImport(context.db, file.value);
      if (!preview.ok) return renderImport(req, res, 400, { result: preview });
      renderImport(req, res, 200, { preview, json: text });
    });

    // The confirmation: the same file again; overwriting existing exams needs its own tick.
    routes.post('/import/confirm', async (req, res) => {
      const form = parseBody(IMPORT_CONFIRM_FORM, req);
      const file = parsedFile(req, res, pastedFile(form.json));
      if (!file.ok) return;
      const preview = await previewImport(context.db, file.value);
      if (!preview.ok) return renderImport(req, res, 400, { result: preview });
      if (preview.overwrites.length > 0 && form.overwrite.trim() !== 'yes') {
        return renderImport(req, res, 400, { preview, json: form.json, overwriteProblem: true });
      }
      const result = await importExams(context.db, file.value);
      if (!result.ok) return renderImport(req, res, 400, { result });
      await context.recordChange(req, { action: 'exam.import', changes: [{ field: 'exams', new: `${result.created} created, ${result.updated} updated` }] });
      res.redirect(303, `/admin/exams?done=exams-imported&created=${result.created}&updated=${result.updated}`);
    });
  },
);

import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { parseBody, trimmedField } from '../../http/request-input.js';
import { BODY_SHAPES, faultSchema, type Fault, type FaultControls } from './faults.js';

/** Renders one of the emulator's views (its layout, assets and escaping). */
export type RenderView = (req: Request, res: Response, view: string, data: Record<string, unknown>, status?: number) => Promise<void>;

/** The small form of the controls page: every field text, read into a fault below. */
const FAULT_FORM = z.object({ kind: trimmedField, ms: trimmedField, status: trimmedField, body: z.string().default(''), shape: trimmedField, times: trimmedField });

/** What each field must hold, said the way a person reads it (the JSON endpoint keeps zod's own words). */
const FIELD_RULES: Record<string, string> = {
  kind: 'Choose a kind of fault.',
  ms: 'The latency must be a whole number of milliseconds from 0 to 120000.',
  status: 'The status must be an HTTP error status from 400 to 599.',
  body: 'The answer body may have at most 10000 characters.',
  shape: `The body shape must be one of ${BODY_SHAPES.join(', ')}.`,
  times: 'Times must be a whole number from 1, or empty for "until cleared".',
};

const whole = (text: string): number => (/^\d{1,9}$/.test(text) ? Number(text) : Number.NaN);

/** `times` only when given: a fault without it lasts until cleared. */
const timesOf = (times: number | undefined) => (times === undefined ? {} : { times });

function faultFrom(form: z.output<typeof FAULT_FORM>): unknown {
  const times = form.times === '' ? undefined : whole(form.times);
  switch (form.kind) {
    case 'latency':
      return { kind: 'latency', ms: whole(form.ms), ...timesOf(times) };
    case 'status':
      return { kind: 'status', status: whole(form.status), ...(form.body === '' ? {} : { body: form.body }), ...timesOf(times) };
    case 'drop':
      return { kind: 'drop', ...timesOf(times) };
    case 'body':
      return { kind: 'body', shape: form.shape, ...timesOf(times) };
    default:
      return { kind: form.kind };
  }
}

/** One active fault in words: what it does, and for how long. */
export function describeFault(fault: Fault): string {
  const what = {
    latency: () => (fault.kind === 'latency' ? `${fault.ms} ms of latency before each answer` : ''),
    status: () => (fault.kind === 'status' ? `HTTP ${fault.status} instead of the answer${fault.body ? ' (with a body)' : ''}` : ''),
    drop: () => 'the connection is dropped without an answer',
    body: () => (fault.kind === 'body' ? `launch answers shaped "${fault.shape}"` : ''),
  }[fault.kind]();
  const howLong = fault.times === undefined ? 'until cleared' : `for the next ${fault.times} request${fault.times === 1 ? '' : 's'}`;
  return `${what}, ${howLong}`;
}

/** A form posted from another site is refused: this page changes how the emulator answers everyone. */
function sameOrigin(req: Request, res: Response, next: NextFunction): void {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== 'null') {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.get('host')) {
      res.status(403).type('text').send('Forms of this page are taken from this page only.');
      return;
    }
  }
  next();
}

/**
 * The emulator's controls page (`_emulator`): the active faults, a small form that adds one, and a button that
 * clears them — the same faults `POST _emulator/faults` takes as JSON, without curl.
 */
export function controlsPage(router: Router, faults: FaultControls, render: RenderView): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const show = (req: Request, res: Response, extra: Record<string, unknown> = {}, status = 200) =>
    render(req, res, 'controls', { title: 'Faults', place: 'Sandbox controls', base: req.baseUrl, faults: faults.list().map(describeFault), shapes: BODY_SHAPES, values: {}, problem: undefined, ...extra }, status);

  router.get('/_emulator', (req, res, next) => {
    show(req, res).catch(next);
  });

  router.post('/_emulator/faults/form', form, sameOrigin, (req, res, next) => {
    const values = parseBody(FAULT_FORM, req);
    const parsed = faultSchema.safeParse(faultFrom(values));
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? 'kind');
      show(req, res, { values, problem: { field, message: FIELD_RULES[field] ?? FIELD_RULES.kind } }, 400).catch(next);
      return;
    }
    faults.inject(parsed.data);
    res.redirect(303, `${req.baseUrl}/_emulator`);
  });

  router.post('/_emulator/faults/clear', form, sameOrigin, (req, res) => {
    faults.clear();
    res.redirect(303, `${req.baseUrl}/_emulator`);
  });
}

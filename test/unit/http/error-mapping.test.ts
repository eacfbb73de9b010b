import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import multer from 'multer';
import supertest from 'supertest';
import { DatabaseUnavailableError } from '../../../src/db/errors.js';
import { RosterError } from '../../../src/hosted/roster.js';
import { errorHandler, toAppError } from '../../../src/http/error-handler.js';
import { AppError, ForbiddenError, isLogged, NotFoundError } from '../../../src/http/errors.js';
import { createLogger } from '../../../src/logger.js';
import { LoginCapacityError } from '../../../src/lti/errors.js';
import { ProctoringConnectionFailed, ProctoringRequestInvalid, ProctoringTimeout, ProctoringUnavailable } from '../../../src/proctoring/errors.js';

/** The one table from errors to HTTP: every kind of error the tool answers, with its status and code. */
const CASES: Array<{ name: string; error: unknown; status: number; code: string; retryable?: boolean }> = [
  { name: 'an AppError keeps its own status and code', error: new AppError(409, 'exam_closed', 'Closed', 'Closed.'), status: 409, code: 'exam_closed' },
  { name: 'not found', error: new NotFoundError('exam'), status: 404, code: 'not_found' },
  { name: 'forbidden', error: new ForbiddenError('No.'), status: 403, code: 'forbidden' },
  { name: 'too many pending logins', error: new LoginCapacityError(10), status: 503, code: 'busy', retryable: true },
  { name: 'the database is unavailable', error: new DatabaseUnavailableError('down'), status: 503, code: 'unavailable', retryable: true },
  {
    name: 'a Launch API request the contract refused (not sent)',
    error: new ProctoringRequestInvalid([{ path: 'exam_start', rule: 'pattern', message: 'Bad.' }], 'candidate_launch'),
    status: 422,
    code: 'exam_settings_invalid',
  },
  { name: 'the Launch API did not answer in time', error: new ProctoringTimeout(10_000, 'api.example', 'candidate_launch'), status: 504, code: 'upstream_timeout', retryable: true },
  { name: 'the Launch API is unavailable', error: new ProctoringUnavailable(503, 'reviewer_launch'), status: 502, code: 'upstream_unavailable', retryable: true },
  { name: 'the Launch API cannot be reached', error: new ProctoringConnectionFailed('ECONNREFUSED', 'api.example', 2, 'live_launch'), status: 502, code: 'upstream_connection_failed', retryable: true },
  { name: 'a course the roster does not know', error: new RosterError('unknown_course', 'Unknown course.'), status: 404, code: 'unknown_course' },
  { name: 'the platform has no Names and Roles', error: new RosterError('no_names_and_roles', 'No NRPS.'), status: 404, code: 'no_names_and_roles' },
  { name: 'the roster fetch failed', error: new RosterError('roster_unavailable', 'Down.', { incidentId: 'inc-1' }), status: 502, code: 'roster_unavailable' },
  { name: 'the roster fetch timed out', error: new RosterError('roster_timeout', 'Slow.', { incidentId: 'inc-2' }), status: 504, code: 'roster_timeout' },
  { name: 'an uploaded file over the limit', error: new multer.MulterError('LIMIT_FILE_SIZE', 'logo'), status: 413, code: 'too_large' },
  { name: 'a multipart form with too many files', error: new multer.MulterError('LIMIT_FILE_COUNT'), status: 400, code: 'bad_request' },
  { name: 'a request body over the limit', error: Object.assign(new Error('too large'), { type: 'entity.too.large' }), status: 413, code: 'too_large' },
  { name: 'an unreadable request body', error: Object.assign(new SyntaxError('bad json'), { type: 'entity.parse.failed' }), status: 400, code: 'bad_request' },
  { name: 'a client gone before its body arrived (or cut off by the request timeout)', error: Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 }), status: 400, code: 'bad_request' },
  { name: 'anything else', error: new TypeError('x is undefined'), status: 500, code: 'internal' },
  { name: 'a thrown string', error: 'oops', status: 500, code: 'internal' },
];

describe('error funnel: domain errors to HTTP, in one table', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.status} ${c.code}`, () => {
      const mapped = toAppError(c.error);
      assert.equal(mapped.status, c.status);
      assert.equal(mapped.code, c.code);
      assert.equal(mapped.options.retryable === true, c.retryable === true);
      if (c.error instanceof AppError) assert.equal(mapped, c.error);
    });
  }

  it('a roster failure keeps the incident id its cause was logged under', () => {
    const mapped = toAppError(new RosterError('roster_unavailable', 'Down.', { incidentId: 'inc-3' }));
    assert.equal(mapped.incidentId, 'inc-3');
    assert.equal(isLogged(mapped), true);
    assert.equal(isLogged(toAppError(new RosterError('unknown_course', 'Unknown course.'))), false);
  });

  // Over HTTP: every row answers JSON on an API path with its status, code, incident id and nothing internal.
  const app = express();
  const thrown = new Map(CASES.map((c, i) => [String(i), c.error]));
  app.get('/api/case/:i', (req) => {
    throw thrown.get(req.params.i);
  });
  app.use(errorHandler(createLogger('silent')));
  CASES.forEach((c, i) => {
    it(`answers ${c.name} as JSON ${c.status}`, async () => {
      const response = await supertest(app).get(`/api/case/${i}`).set('Accept', 'text/html');
      assert.equal(response.status, c.status);
      assert.match(String(response.headers['content-type']), /application\/json/);
      const body = response.body as { error?: string; incidentId?: string };
      assert.equal(body.error, c.code);
      assert.equal(typeof body.incidentId, 'string');
      assert.equal(response.headers['cache-control'], 'no-store');
      if (c.status === 503) assert.equal(response.headers['retry-after'], '30');
      assert.doesNotMatch(response.text, /is undefined|bad json|stack/);
    });
  });
});

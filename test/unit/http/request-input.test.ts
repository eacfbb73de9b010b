import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Request } from 'express';
import { z } from 'zod';
import { toAppError } from '../../../src/http/error-handler.js';
import { parseBody, parseParams, parseQuery, RequestInputError, textField, trimmedField } from '../../../src/http/request-input.js';

/** Only the parts of a request the parsers read. */
function requestWith(parts: { body?: unknown; query?: Request['query']; params?: Record<string, string> }): Request {
  const req: Pick<Request, 'body' | 'query' | 'params'> = { body: parts.body, query: parts.query ?? {}, params: parts.params ?? {} };
  return req satisfies Partial<Request> as Request;
}

describe('parsing request input at the boundary', () => {
  const form = z.object({ name: trimmedField, note: textField });

  it('gives typed values: missing text fields read as empty, text is trimmed where asked', () => {
    assert.deepEqual(parseBody(form, requestWith({ body: { name: '  Ada ', other: 'x' } })), { name: 'Ada', note: '' });
    assert.deepEqual(parseBody(form, requestWith({})), { name: '', note: '' });
  });

  it('refuses a field sent twice (a list) with a 400 that names the field, not its value', () => {
    const error = (() => {
      try {
        parseBody(form, requestWith({ body: { name: ['a', 'secret-value'] } }));
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    assert.ok(error instanceof RequestInputError);
    assert.equal(error.part, 'body');
    assert.deepEqual(error.problems.map((problem) => [problem.field, problem.code]), [['name', 'invalid_type']]);
    const answer = toAppError(error);
    assert.equal(answer.status, 400);
    assert.equal(answer.options.messageKey, 'common:errors.invalidRequest');
    assert.deepEqual(answer.options.details, { problems: [{ field: 'name', code: 'invalid_type' }] });
    assert.doesNotMatch(String(answer.options.adminMessage), /secret-value/);
  });

  it('reads the query and the path parameters with their own schemas', () => {
    assert.deepEqual(parseQuery(z.object({ page: z.coerce.number().int().min(1).catch(1) }), requestWith({ query: { page: '3' } })), { page: 3 });
    assert.throws(() => parseParams(z.object({ examId: z.uuid() }), requestWith({ params: { examId: 'nope' } })), (error: unknown) => error instanceof RequestInputError && error.part === 'params');
  });
});

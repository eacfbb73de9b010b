import type { Request } from 'express';
import { z } from 'zod';
import { isRecord } from '../values.js';
import { AppError } from './errors.js';

/** Where a request carries its input. */
export type RequestPart = 'body' | 'query' | 'params';

/** One way a request's input does not fit its schema: the field's path and zod's issue code, never the value sent. */
export interface InputProblem {
  field: string;
  code: string;
  message: string;
}

/**
 * A request whose body, query or params do not fit the route's schema: a 400 through the error funnel, with a
 * page (or JSON) that tells the reader to go back and try again, and the fields at fault for staff and API clients.
 */
export class RequestInputError extends AppError {
  constructor(
    readonly part: RequestPart,
    readonly problems: readonly InputProblem[],
  ) {
    super(400, 'bad_request', 'Unexpected request', 'The request was not what this page expects.', {
      adminMessage: `the request's ${part} does not fit: ${problems.map((problem) => `${problem.field || part}: ${problem.message}`).join('; ')}`,
      messageKey: 'common:errors.invalidRequest',
      details: { problems: problems.map(({ field, code }) => ({ field, code })) },
    });
    this.name = 'RequestInputError';
  }
}

function parsePart<Schema extends z.ZodType>(part: RequestPart, schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new RequestInputError(
    part,
    result.error.issues.map((issue) => ({ field: issue.path.map(String).join('.'), code: issue.code, message: issue.message })),
  );
}

/** The request's body as `schema` reads it (no body reads as `{}`); a body that does not fit throws `RequestInputError`. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, req: Request): z.output<Schema> {
  const body: unknown = req.body;
  return parsePart('body', schema, body ?? {});
}

/** The request's query string as `schema` reads it; a query that does not fit throws `RequestInputError`. */
export function parseQuery<Schema extends z.ZodType>(schema: Schema, req: Request): z.output<Schema> {
  return parsePart('query', schema, req.query);
}

/** The route's path parameters as `schema` reads them; parameters that do not fit throw `RequestInputError`. */
export function parseParams<Schema extends z.ZodType>(schema: Schema, req: Request): z.output<Schema> {
  return parsePart('params', schema, req.params);
}

/**
 * A GET's query or a POST's form, whichever the request uses (the form's fields win), as `schema` reads them: for
 * routes that accept both, like an LTI login initiation.
 */
export function parseQueryOrBody<Schema extends z.ZodType>(schema: Schema, req: Request): z.output<Schema> {
  return parsePart('body', schema, { ...req.query, ...bodyFields(req) });
}

/**
 * The request's body as a record of fields (empty when there is none or it is not an object), for middleware that
 * looks at a field or two and passes every other request on untouched (the LTI adapter in front of ltijs, the CSRF
 * check). Routes parse their body with `parseBody`.
 */
export function bodyFields(req: Request): Readonly<Record<string, unknown>> {
  const body: unknown = req.body;
  return isRecord(body) ? body : {};
}

/**
 * A text field of a form or query string: a missing field reads as empty, anything but one string (a field sent
 * twice arrives as a list) is refused.
 */
export const textField = z.string().default('');

/** `textField`, trimmed. */
export const trimmedField = z.string().trim().default('');

/** A text field that may be left out (undefined then); anything but one string is refused. */
export const optionalText = z.string().optional();

/** Checkboxes of one name: none, one or several strings, read as a list. */
export const textList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) => (value === undefined ? [] : typeof value === 'string' ? [value] : value));

/** A path parameter (express gives each as one string). */
export const pathParam = z.string();

import express, { type RequestHandler } from 'express';
import multer from 'multer';
import { AppError } from '../http/errors.js';
import { UPLOAD_MAX_BYTES } from '../http/uploads.js';

/**
 * How much body each console request may carry, read only once the request is known to be allowed: the
 * sign-in form before a session exists, every other form after the session check. A body larger than its
 * route allows is refused from its Content-Length before a byte of it is read.
 */

/** The sign-in form: a CSRF token, the password and where to go next. */
export const SIGN_IN_FORM_MAX_BYTES = 8 * 1024;
/** Every other console form: settings, platform registrations with a pasted key, lists of deployment ids. */
export const FORM_MAX_BYTES = 64 * 1024;
/** A form with a file (or the exams file pasted as text): the file's cap and room for the form's other fields. */
export const UPLOAD_FORM_MAX_BYTES = UPLOAD_MAX_BYTES + 16 * 1024;

/** Console routes (below /admin) that take a file. */
const UPLOAD_ROUTES: readonly RegExp[] = [/^\/exams\/import(?:\/confirm)?\/?$/, /^\/institution\/[^/]+\/?$/];

export const bodyLimitOf = (path: string): number => (UPLOAD_ROUTES.some((route) => route.test(path)) ? UPLOAD_FORM_MAX_BYTES : FORM_MAX_BYTES);

export class LengthRequiredError extends AppError {
  constructor() {
    super(411, 'length_required', 'Length required', 'The form could not be read. Please try again.', { messageKey: 'common:errors.unreadableForm', adminMessage: 'a form without Content-Length' });
  }
}

export class BodyTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'too_large', 'Too large', 'The request is too large.', { messageKey: 'common:errors.requestTooLarge', adminMessage: `the body is larger than this form takes (${limit} bytes)` });
  }
}

/**
 * Refuses a body announced larger than `limit` before reading it, and closes the connection rather than
 * reading the rest of it off the socket.
 */
export function announcedBodyLimit(limitOf: (path: string) => number): RequestHandler {
  return (req, res, next) => {
    const limit = limitOf(req.path);
    const announced = req.headers['content-length'];
    // Browsers announce the length of every form. A body streamed without one could not be capped as a whole, and
    // the form parser, once past its limit, reads the rest of such a body before it answers.
    if (announced === undefined && req.headers['transfer-encoding'] !== undefined) {
      res.set('Connection', 'close');
      next(new LengthRequiredError());
      return;
    }
    if (Number(announced ?? 0) > limit) {
      res.set('Connection', 'close');
      next(new BodyTooLargeError(limit));
      return;
    }
    next();
  };
}

/** The sign-in form, read only on its own route and only this much. */
export const signInForm: RequestHandler[] = [announcedBodyLimit(() => SIGN_IN_FORM_MAX_BYTES), express.urlencoded({ extended: false, limit: SIGN_IN_FORM_MAX_BYTES })];

/**
 * The forms of signed-in pages, each within its route's limit: URL-encoded forms by express, multipart forms
 * (file uploads) by multer, files in memory (one per form, at most UPLOAD_MAX_BYTES). A refused upload reaches
 * the error handler as multer's MulterError.
 */
export function consoleForms(): RequestHandler[] {
  const small = { form: express.urlencoded({ extended: false, limit: FORM_MAX_BYTES }), multipart: multipartOf(FORM_MAX_BYTES, 0) };
  const upload = { form: express.urlencoded({ extended: false, limit: UPLOAD_FORM_MAX_BYTES }), multipart: multipartOf(UPLOAD_FORM_MAX_BYTES, 1) };
  const parsersOf = (path: string) => (bodyLimitOf(path) === UPLOAD_FORM_MAX_BYTES ? upload : small);
  return [
    announcedBodyLimit(bodyLimitOf),
    (req, res, next) => parsersOf(req.path).form(req, res, next),
    (req, res, next) => parsersOf(req.path).multipart(req, res, next),
  ];
}

// The institution settings form sends a field per ticked proctor role along with its logo: room for many.
const MULTIPART_MAX_FIELDS = 200;

function multipartOf(limit: number, files: number): RequestHandler {
  return multer({ storage: multer.memoryStorage(), limits: { fileSize: UPLOAD_MAX_BYTES, files, fields: MULTIPART_MAX_FIELDS, fieldSize: limit, parts: MULTIPART_MAX_FIELDS + files } }).any();
}

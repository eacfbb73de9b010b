import type { Response } from 'express';

/**
 * What the tool's own middleware keeps in `res.locals` for later handlers and the error funnel. A feature that keeps
 * more declares its own view of `res.locals` the same way (an interface, read through a function like `localsOf`),
 * so nothing reads `res.locals` untyped.
 */
export interface ResponseLocals {
  /** The request id (`X-Request-Id`), set by `requestId`. */
  reqId?: string;
  /** Error pages show their cause: set for administrators and instructors. */
  showAdminDetail?: boolean;
  /** Fields a "Try again" button posts back (an LTI session's token, the form's CSRF token). */
  retryFields?: Record<string, string>;
}

/** The typed view of `res.locals`. */
export function localsOf(res: Response): ResponseLocals {
  return res.locals;
}

import { randomUUID } from 'node:crypto';

/**
 * Errors the tool shows to people. `publicMessage` is safe for anyone (students included);
 * `adminMessage` explains the cause and is shown only to instructors and administrators.
 * Every error gets an incident id, logged with its cause, so support can find it.
 */
export class AppError extends Error {
  readonly incidentId = randomUUID();
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly publicMessage: string,
    readonly options: { adminMessage?: string; cause?: unknown; retryable?: boolean } = {},
  ) {
    super(`${code}: ${options.adminMessage ?? publicMessage}`, { cause: options.cause });
    this.name = 'AppError';
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'page') {
    super(404, 'not_found', 'Not found', `This ${what} does not exist.`);
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, adminMessage?: string) {
    super(400, 'bad_request', 'Something is wrong with this request', message, { adminMessage });
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, adminMessage?: string) {
    super(403, 'forbidden', 'Not allowed', message, { adminMessage });
  }
}

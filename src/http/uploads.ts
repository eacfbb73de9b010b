import type { Request } from 'express';
import { propertyOf } from '../values.js';
import { AppError } from './errors.js';

/** Largest file a console form accepts (logo, exams file); each page then applies its own limit. */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** A file past UPLOAD_MAX_BYTES, or the same text pasted into a form field instead. */
export const fileTooLarge = (): AppError =>
  new AppError(413, 'too_large', 'File too large', `The file is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MiB.`, { messageKey: 'common:errors.fileTooLarge', messageValues: { megabytes: UPLOAD_MAX_BYTES / 1024 / 1024 } });

/** The uploaded file of a form field, if one was chosen. */
export function uploadedFile(req: Request, field: string): Buffer | undefined {
  const files = propertyOf(req, 'files');
  const file: unknown = Array.isArray(files) ? files.find((candidate: unknown) => propertyOf(candidate, 'fieldname') === field) : undefined;
  const buffer = propertyOf(file, 'buffer');
  return Buffer.isBuffer(buffer) && buffer.length > 0 ? buffer : undefined;
}

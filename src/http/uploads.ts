import type { Request } from 'express';

/** Largest file a console form accepts (logo, exams file); each page then applies its own limit. */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** The uploaded file of a form field, if one was chosen. */
export function uploadedFile(req: Request, field: string): Buffer | undefined {
  const files = (req as Request & { files?: Array<{ fieldname: string; buffer: Buffer; size: number }> }).files;
  const file = Array.isArray(files) ? files.find((f) => f.fieldname === field) : undefined;
  return file && file.size > 0 ? file.buffer : undefined;
}

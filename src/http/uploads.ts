import type { Request, RequestHandler } from 'express';
import multer from 'multer';

/** Largest file a console form accepts (logo, exams file); each page then applies its own limit. */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Parses multipart forms of the console (file uploads) into req.body and req.files, before the CSRF
 * check reads the form's token. Files stay in memory: one file per form, at most UPLOAD_MAX_BYTES.
 */
export function multipartForms(): RequestHandler {
  const parse = multer({ storage: multer.memoryStorage(), limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024 } }).any();
  // A refused upload (too large, too many files) reaches the error handler as multer's MulterError.
  return (req, res, next) => parse(req, res, next);
}

/** The uploaded file of a form field, if one was chosen. */
export function uploadedFile(req: Request, field: string): Buffer | undefined {
  const files = (req as Request & { files?: Array<{ fieldname: string; buffer: Buffer; size: number }> }).files;
  const file = Array.isArray(files) ? files.find((f) => f.fieldname === field) : undefined;
  return file && file.size > 0 ? file.buffer : undefined;
}

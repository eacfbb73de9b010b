import { AppError } from '../http/errors.js';
import { ProctoringError } from '../proctoring/errors.js';

/**
 * What went wrong with a subscription call, in an administrator's words: the proctoring service's answer
 * explained (inactive account, wrong region, key refused, unreachable, …) or the tool's own reason. Undefined
 * for anything else (an internal fault, logged instead).
 */
export function webhookErrorInWords(error: unknown): string | undefined {
  if (error instanceof ProctoringError) return error.adminMessage;
  if (error instanceof AppError) return error.options.adminMessage ?? error.publicMessage;
  return undefined;
}

import { AppError } from '../http/errors.js';
import { wording, type Wording } from '../i18n/index.js';
import { ProctoringError } from '../proctoring/errors.js';

/**
 * What went wrong with a subscription call, in an administrator's words: the proctoring service's answer
 * explained (inactive account, wrong region, key refused, unreachable, …) or the tool's own reason. Undefined
 * for anything else (an internal fault, logged instead).
 */
export function webhookErrorInWords(error: unknown): Wording | undefined {
  if (error instanceof ProctoringError) return error.adminText;
  if (error instanceof AppError) {
    const { adminText, adminMessage, messageKey } = error.options;
    if (adminText) return adminText;
    if (adminMessage) return () => adminMessage;
    return messageKey ? wording(`${messageKey}.message`, error.options.messageValues) : () => error.publicMessage;
  }
  return undefined;
}

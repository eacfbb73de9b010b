/** Failures of the proctoring service's Launch API, each with a stable code and an explanation for admins. */
export type ProctoringErrorCode =
  | 'account_inactive'
  | 'wrong_region'
  | 'invalid_api_key'
  | 'bad_request'
  | 'timeout'
  | 'unavailable'
  | 'connection_failed'
  | 'bad_response';

export class ProctoringError extends Error {
  constructor(
    readonly code: ProctoringErrorCode,
    readonly adminMessage: string,
    readonly status?: number,
  ) {
    super(`${code}: ${adminMessage}`);
    this.name = 'ProctoringError';
  }
}

export function errorForStatus(status: number, body: string): ProctoringError {
  if (status === 401) {
    const code = /\b(2154|2155|2655)\b/.exec(body)?.[1];
    if (code === '2154') return new ProctoringError('account_inactive', 'The proctoring account is not active (401, code 2154). Contact the proctoring service to reactivate it.', 401);
    if (code === '2155') return new ProctoringError('wrong_region', 'The API key is not valid for this region (401, code 2155): check PROCTORING_BASE_URL and PROCTORING_REGION.', 401);
    return new ProctoringError('invalid_api_key', 'The proctoring service rejected the API key (401, code 2655): check the consumer key and secret or the API key.', 401);
  }
  if (status === 400) return new ProctoringError('bad_request', `The proctoring service refused the request as invalid (400): ${body.slice(0, 500)}`, 400);
  return new ProctoringError('unavailable', `The proctoring service answered ${status}.`, status);
}

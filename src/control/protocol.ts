/** What the CLI sends to a running tool's control endpoint, and what it gets back. */
export interface CommandRequest {
  /** The command line after `proctor-lti`, e.g. ['platform', 'add', '--issuer', …]. */
  argv: string[];
  /** Contents (base64) of the arguments that name files the CLI could read, keyed by the argument as given. */
  files: Record<string, string>;
  /** Standard input (base64), when an argument is `-`. */
  stdin?: string;
  /** Who runs the command and where from, for the audit log. */
  actor: { user: string; host: string };
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Files the command wrote (e.g. `exam export --output`), base64 by the path given: the CLI writes them. */
  outputs: Record<string, string>;
}

export const CONTROL_PATH = '/cli';
/** Logo images and exam files travel in the body. */
export const CONTROL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/** What the CLI sends to a running tool's control endpoint, and what it gets back. */
import { z } from 'zod';

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

/** A tool's answer as the CLI reads it: a result, or a refusal naming its reason. */
export const controlAnswerSchema = z.object({
  exitCode: z.number().int().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  outputs: z.record(z.string(), z.string()).optional(),
  error: z.string().optional(),
});

/** A result with every part present (an answer of 200 must have them). */
export function commandResultOf(answer: z.infer<typeof controlAnswerSchema>): CommandResult | undefined {
  const { exitCode, stdout, stderr, outputs } = answer;
  return exitCode === undefined || stdout === undefined || stderr === undefined ? undefined : { exitCode, stdout, stderr, outputs: outputs ?? {} };
}

export const CONTROL_PATH = '/cli';
/** Logo images and exam files travel in the body. */
export const CONTROL_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

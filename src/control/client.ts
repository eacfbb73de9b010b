import { request } from 'node:http';
import type { LockHolder } from './lock.js';
import { commandResultOf, CONTROL_PATH, controlAnswerSchema, type CommandRequest, type CommandResult } from './protocol.js';
import { errorCode } from '../values.js';

/** The tool holds DATA_DIR but its control endpoint cannot be used: the message says what to do instead. */
export class ToolUnreachableError extends Error {
  override readonly name = 'ToolUnreachableError';
}

/** Sends one command to the running tool named by the lock; throws ToolUnreachableError when that fails. */
export async function runThroughTool(holder: LockHolder, body: CommandRequest, timeoutMs: number): Promise<CommandResult> {
  const control = holder.control;
  if (!control) throw new ToolUnreachableError(`the running proctor-lti (pid ${holder.pid}) is still starting`);
  const payload = JSON.stringify(body);
  const consoleUrl = `${control.publicUrl}/admin`;
  return new Promise<CommandResult>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: control.port,
        method: 'POST',
        path: CONTROL_PATH,
        headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const unexpected = () => new ToolUnreachableError(`the running proctor-lti (pid ${holder.pid}) answered something unexpected. Make the change in the admin console: ${consoleUrl}`);
          let answer: unknown;
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            reject(unexpected());
            return;
          }
          const parsed = controlAnswerSchema.safeParse(answer);
          if (!parsed.success) {
            reject(unexpected());
            return;
          }
          if (res.statusCode !== 200) {
            reject(new ToolUnreachableError(`the running proctor-lti (pid ${holder.pid}) refused the command: ${parsed.data.error ?? res.statusCode}. Make the change in the admin console: ${consoleUrl}`));
            return;
          }
          const result = commandResultOf(parsed.data);
          if (result) resolve(result);
          else reject(unexpected());
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => {
      req.destroy();
      reject(new ToolUnreachableError(`the running proctor-lti (pid ${holder.pid}) did not finish the command within ${Math.round(timeoutMs / 1000)} s; check its log, and the admin console: ${consoleUrl}`));
    });
    req.on('error', (error) => {
      reject(new ToolUnreachableError(`a proctor-lti (pid ${holder.pid}) holds the embedded database but does not answer on its control port (${String(errorCode(error) ?? error.message)}). Use the admin console (${consoleUrl}), or stop that process and try again.`));
    });
    req.end(payload);
  });
}

import type { App } from '../app.js';
import type { Config } from '../config.js';
import type { CommandRequest, CommandResult } from '../control/protocol.js';
import type { Database } from '../db/types.js';
import { withCapturedIo } from './io.js';
import type { CliRuntime } from './context.js';
import { buildCli, runProgram } from './program.js';

/**
 * Runs CLI commands inside the running tool (sent through the control endpoint): on the tool's own database
 * connection, LTI adapter and proctoring clients, so the change is the tool's at once and nothing is lost.
 */
export function createInToolRunner(deps: { config: Config; db: Database; tool: App }): (request: CommandRequest) => Promise<CommandResult> {
  const context = { config: deps.config, db: deps.db };
  const runtime: CliRuntime = {
    withDatabase: (work) => work(context),
    withSchemaDatabase: (work) => work(context),
    withLti: (work) => work(deps.tool.lti, context),
    withAccountClients: (work) => work(deps.tool.accountClients, context),
    withWebhooks: (work) => work(deps.tool.webhooks.subscriptions, context),
  };
  return (request) => withCapturedIo(request, () => buildCli(runtime, request.argv).then((program) => runProgram(program, request.argv)));
}

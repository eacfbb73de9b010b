#!/usr/bin/env node
import { ConfigError, loadConfig } from '../config.js';

/**
 * The `proctor-lti` command. It loads only what routing needs (the configuration and DATA_DIR's lock) until it
 * knows where the command runs: in the running tool (embedded database held by it), or here.
 */
async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    const { VERSION } = await import('../version.js');
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { isStandalone, runStandalone } = await import('./standalone.js');
  if (isStandalone(argv)) return runStandalone(argv);
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const { chooseRoute, runInTool } = await import('./route.js');
  const route = await chooseRoute(config.database);
  if (route.kind === 'tool') return runInTool(route.holder, argv);
  try {
    const [{ buildCli, runProgram }, { localRuntime }] = await Promise.all([import('./program.js'), import('./context.js')]);
    await runProgram(await buildCli(localRuntime(config), argv), argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } finally {
    route.lock?.release();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}

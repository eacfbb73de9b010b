// `node --import ./test/helpers/record-modules.mjs …`: appends the URL of every module the process loads to
// the file named by MODULE_LOG. For tests of what a command loads (never of how long it takes).
import { register } from 'node:module';

if (process.env.MODULE_LOG) register('./record-modules-hooks.mjs', import.meta.url, { data: { log: process.env.MODULE_LOG } });

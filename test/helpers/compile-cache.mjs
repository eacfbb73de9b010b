// Imported for its effect by the test processes and by the tool and CLI processes tests start (plain JavaScript,
// as those may run the compiled build without tsx). Node.js 22.1 and later keep the code they compile for each
// module on disk and reuse it in the next process: a test run starts hundreds of processes that load the same
// modules, and compiling them was about a quarter of a start's CPU. Node.js 20 has no such cache: nothing changes there.
import module from 'node:module';
import { join } from 'node:path';

module.enableCompileCache?.(join('node_modules', '.cache', 'proctor-lti-tests', 'node-compile-cache'));

import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

export interface ModuleRecorder {
  /** URLs of every module loaded since `recordLoadedModules()`. */
  loaded(): Promise<string[]>;
  close(): void;
}

/** Starts recording which modules the process loads from now on (import them dynamically after this). */
export function recordLoadedModules(): ModuleRecorder {
  const { port1, port2 } = new MessageChannel();
  register(new URL('./module-recorder-hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
  return {
    loaded: () =>
      new Promise((resolve) => {
        port1.once('message', (urls: string[]) => resolve(urls));
        port1.postMessage('list');
      }),
    close: () => port1.close(),
  };
}

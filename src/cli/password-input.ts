import { bytesOf } from '../values.js';

/**
 * A password from standard input. On a terminal: asked for twice on standard error with echo off (raw mode);
 * undefined when the two differ. From a pipe: the first line.
 */
export async function readPassword(): Promise<string | undefined> {
  if (!process.stdin.isTTY) return firstLine(await readAll());
  const first = await prompt('Password: ');
  const second = await prompt('Repeat it: ');
  return first === second ? first : undefined;
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(bytesOf(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const firstLine = (text: string) => text.split(/\r?\n/, 1)[0] ?? '';

function prompt(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

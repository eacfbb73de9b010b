/**
 * Characters that change how text is shown rather than being shown: C0 and C1 controls (ESC starts
 * terminal escape sequences, 0x9B is a one-byte CSI), DEL, and the bidirectional overrides and
 * isolates that reorder what follows them. Pure.
 */
// Matching control characters is the point here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text);
}

const escapeOne = (c: string) => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/** Text safe to print on a terminal: every such character written as a visible escape (`\x1b`). */
export function forTerminal(text: string): string {
  return text.replace(CONTROLS, escapeOne);
}

/** JSON for a terminal: JSON already escapes C0 controls; C1 controls and bidi characters are escaped too. */
const NOT_ESCAPED_BY_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(NOT_ESCAPED_BY_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

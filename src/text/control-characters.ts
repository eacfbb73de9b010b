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

/** The same characters without the line breaks and tabs that multi-line text keeps. */
// eslint-disable-next-line no-control-regex
const HIDDEN_IN_PAGES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Text safe to show on a page: controls and bidi overrides written as visible escapes, line breaks and tabs kept. */
export function forPage(text: string): string {
  return text.replace(HIDDEN_IN_PAGES, escapeOne);
}

/**
 * `forPage` applied to every string inside plain data (arrays and plain objects, a few levels deep): what a
 * page shows of data others chose (an LMS's course titles, platform names, refused issuers). Other objects
 * (dates, class instances, functions) are left as they are.
 */
export function dataForPage<T>(value: T, depth?: number): T;
export function dataForPage(value: unknown, depth = 8): unknown {
  if (typeof value === 'string') return forPage(value);
  if (depth <= 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => dataForPage(item, depth - 1));
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, dataForPage(item, depth - 1)]));
}

/** Text with those characters removed, line breaks and tabs kept: typed text a page will show as it reads. */
export function withoutHiddenCharacters(text: string): string {
  return text.replace(HIDDEN_IN_PAGES, '');
}

import { patternMatches } from '../proctoring/patterns.js';

/**
 * The LMS addresses in an exam's settings after the LMS changed its address: the quiz address and the three page
 * patterns that name the old LMS site are rewritten to name the new one. Pure: the move reads the documents,
 * asks `rewriteExamAddresses` and writes what it answers.
 *
 * A site is the issuer's scheme, host name and explicit port: `http://moodle.example.edu` →
 * `https://lms.example.edu`. An address names a site when its host name and explicit port are the site's (its
 * scheme may differ: http and https of one host are one site). A page pattern names it when the host appears
 * after `//` (or `\/\/`) with its dots escaped (`moodle\.example\.edu`, as the presets write it) or not, and
 * nothing of a longer host name follows (`moodle\.example\.edu\.au` is another host). A literal scheme before it
 * (`http://`) becomes the new site's; `https?://` stays.
 */
export interface Site {
  scheme: 'http' | 'https';
  hostname: string;
  /** The explicit port ('' for the scheme's default). */
  port: string;
}

/** The site of an issuer (or any http(s) address); undefined when it is not one. */
export function siteOf(address: string): Site | undefined {
  const origin = /^(https?):\/\/[^/?#\s]+/i.exec(address.trim());
  if (!origin) return undefined;
  try {
    const url = new URL(origin[0]);
    if (!url.hostname || url.username || url.password) return undefined;
    return { scheme: url.protocol === 'https:' ? 'https' : 'http', hostname: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

const sameHost = (a: Site, b: Site) => a.hostname === b.hostname && a.port === b.port;
export const sameSite = (a: Site, b: Site) => sameHost(a, b) && a.scheme === b.scheme;
const hostText = (site: Site) => `${site.hostname}${site.port ? `:${site.port}` : ''}`;

/** The address on the new site, or undefined when it does not name the old one. */
export function rewriteAddress(address: string, from: Site, to: Site): string | undefined {
  const site = siteOf(address);
  if (!site || !sameHost(site, from)) return undefined;
  const origin = /^\s*https?:\/\/[^/?#\s]+/i.exec(address);
  if (!origin) return undefined;
  return `${to.scheme}://${hostText(to)}${address.slice(origin[0].length)}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The old host as a page pattern may spell it: each dot escaped (`\.`) or not. */
function hostInPattern(site: Site): string {
  const name = site.hostname.split('.').map(escapeRegExp).join(String.raw`(?:\\\.|\.)`);
  return `${name}${site.port ? `:${site.port}` : ''}`;
}

/** Nothing of a longer host name (a label character, a dot before a label, another port) follows. */
const HOST_END = String.raw`(?![A-Za-z0-9_-]|\\\.[A-Za-z0-9]|\.[A-Za-z0-9]|:\d)`;

/** The page pattern naming the new site, or undefined when it does not name the old one where it can be rewritten. */
export function rewritePattern(pattern: string, from: Site, to: Site): string | undefined {
  const finder = new RegExp(String.raw`(?:(https?)(\?)?(:(?:\/\/|\\\/\\\/))|(\/\/|\\\/\\\/))` + hostInPattern(from) + HOST_END, 'gi');
  let changed = false;
  const rewritten = pattern.replace(finder, (_match, scheme: string | undefined, optional: string | undefined, separator: string | undefined, bare: string | undefined) => {
    changed = true;
    const host = escapeRegExp(hostText(to));
    if (scheme === undefined) return `${bare ?? '//'}${host}`;
    return `${optional ? `${scheme}${optional}` : to.scheme}${separator ?? '://'}${host}`;
  });
  return changed ? rewritten : undefined;
}

/** Whether a text (address or pattern) still names the site's host anywhere. */
export function namesHost(text: string, site: Site): boolean {
  return new RegExp(String.raw`(?<![A-Za-z0-9_-]|\.)` + hostInPattern(site) + HOST_END, 'i').test(text);
}

/** The fields of a settings document that name LMS pages: its quiz address and page patterns. */
export const ADDRESS_FIELDS = ['launch_url', 'tool.quiz_url', 'exam_start', 'exam_take', 'exam_end'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
const PATTERN_FIELDS: ReadonlySet<AddressField> = new Set(['exam_start', 'exam_take', 'exam_end']);

export interface AddressRewrite {
  field: AddressField;
  before: string;
  after: string;
}

export type AddressOutcome =
  | { kind: 'unchanged' }
  | { kind: 'rewritten'; rewrites: AddressRewrite[] }
  /** Left as it was: `address` names a third site, or a field could not be rewritten safely (`field`). */
  | { kind: 'needs-look'; address?: string; field?: AddressField };

type Fields = Partial<Record<AddressField, string>>;

/** The address fields of a stored settings document (unknown shape: documents stored under older rules too). */
export function addressFieldsOf(document: unknown): Fields {
  const fields: Fields = {};
  if (typeof document !== 'object' || document === null) return fields;
  const read = (record: object, key: string): unknown => Object.entries(record).find(([name]) => name === key)?.[1];
  for (const field of ADDRESS_FIELDS) {
    const [first, second] = field.split('.');
    const outer = read(document, first ?? field);
    const value = second === undefined ? outer : typeof outer === 'object' && outer !== null ? read(outer, second) : undefined;
    if (typeof value === 'string') fields[field] = value;
  }
  return fields;
}

/**
 * What a move does to one exam's addresses. All or nothing per exam: when any field naming the old site cannot be
 * rewritten (or the rewritten `exam_start` no longer matches the rewritten quiz address), nothing of it is, and it
 * needs a look. An exam whose quiz address names a third site needs a look too.
 */
export function rewriteExamAddresses(fields: Fields, from: Site, to: Site): AddressOutcome {
  if (sameSite(from, to)) return { kind: 'unchanged' };
  const rewrites: AddressRewrite[] = [];
  for (const field of ADDRESS_FIELDS) {
    const before = fields[field];
    if (before === undefined || before === '') continue;
    if (!PATTERN_FIELDS.has(field)) {
      const site = siteOf(before);
      if (site && !sameHost(site, from) && !sameHost(site, to)) return { kind: 'needs-look', address: before };
    }
    const after = PATTERN_FIELDS.has(field) ? rewritePattern(before, from, to) : rewriteAddress(before, from, to);
    if (after !== undefined && after !== before) rewrites.push({ field, before, after });
    if (namesHost(after ?? before, from) && !sameHost(from, to)) return { kind: 'needs-look', field };
  }
  if (rewrites.length === 0) return { kind: 'unchanged' };
  const value = (field: AddressField) => rewrites.find((r) => r.field === field)?.after ?? fields[field];
  const launchUrl = value('launch_url');
  const examStart = value('exam_start');
  if (launchUrl !== undefined && examStart !== undefined && fields.launch_url !== undefined && fields.exam_start !== undefined) {
    if (patternMatches(fields.exam_start, fields.launch_url) === true && patternMatches(examStart, launchUrl) !== true) return { kind: 'needs-look', field: 'exam_start' };
  }
  return { kind: 'rewritten', rewrites };
}

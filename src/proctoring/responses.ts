import { isAbsoluteHttpUrl } from './contract.js';
import { isRecord } from '../values.js';

/**
 * Reading the success bodies, whose shape the spec does not show ("Success response bodies of all
 * operations: not shown"). the official client of this API takes the body as the URL; an older
 * API answered a JSON array of (sometimes percent-encoded) URLs; a body that is only a number was an
 * error code.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; detail: string };

const URL_FIELDS = ['url', 'launch_url', 'launchUrl', 'candidate_url', 'reviewer_url', 'proctor_url', 'launchpad_url', 'link', 'href'];

/** The generated URL from a launch's success body: bare text, a JSON string, an array (first item) or an object. */
export function parseLaunchUrl(body: string): Parsed<string> {
  const text = body.trim();
  if (text === '') return { ok: false, detail: 'an empty body instead of a URL' };
  if (/^-?\d+(\.\d+)?$/.test(text)) return { ok: false, detail: `only the number ${excerpt(text)}, which the service uses as an error code` };
  let value: unknown = text;
  if (/^["[{]/.test(text)) {
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, detail: `malformed JSON: ${excerpt(text)}` };
    }
  }
  if (Array.isArray(value)) value = value[0];
  if (isRecord(value)) value = urlField(value);
  if (typeof value !== 'string') return { ok: false, detail: `no URL in the answer: ${excerpt(text)}` };
  const url = decodePercentEncoded(value.trim());
  if (!isAbsoluteHttpUrl(url) || /\s/.test(url)) return { ok: false, detail: `not an absolute http(s) URL: ${excerpt(url)}` };
  return { ok: true, value: url };
}

function urlField(record: Record<string, unknown>): unknown {
  for (const field of URL_FIELDS) {
    if (typeof record[field] === 'string') return record[field];
  }
  // Any other "…url" field holding an absolute URL.
  const found = Object.entries(record).find(([key, v]) => /url$/i.test(key) && typeof v === 'string' && isAbsoluteHttpUrl(v));
  return found?.[1];
}

/** `https%3A%2F%2F…` → `https://…` (possibly encoded twice). The `#tag` fragment survives decoding. */
function decodePercentEncoded(value: string): string {
  let url = value;
  for (let i = 0; i < 3 && /^https?%(?:25)*3A/i.test(url); i++) {
    try {
      url = decodeURIComponent(url);
    } catch {
      return value;
    }
  }
  return url;
}

/** The first characters of an answer, on one line, for messages. */
export function excerpt(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * Where each member of a JSON object's top level sits in the raw bytes of its text. The webhook signature
 * covers the `data` member exactly as it was sent, so it must be cut out of the body, never re-serialised
 * (JSON.stringify would reorder nothing but could change spacing, escapes and number forms).
 *
 * Call it only on text that JSON.parse accepted: it finds boundaries, it does not validate. Structural
 * characters of JSON are ASCII and UTF-8 never uses ASCII bytes inside a multi-byte character, so scanning
 * bytes is safe.
 */
export interface RawMember {
  key: string;
  /** Byte offsets of the member's value: `body.subarray(start, end)`. */
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** The top-level members of a JSON object, in order (duplicates included); undefined when the text is not an object. */
export function topLevelMembers(body: Uint8Array): RawMember[] | undefined {
  let at = 0;
  const skipSpace = () => {
    while (isSpace(body[at])) at++;
  };
  /** From an opening quote to just past its closing quote. */
  const skipString = () => {
    at++;
    while (at < body.length && body[at] !== QUOTE) at += body[at] === BACKSLASH ? 2 : 1;
    if (at >= body.length) throw new RangeError('unterminated string');
    at++;
  };
  const skipValue = () => {
    const first = body[at];
    if (first === QUOTE) {
      skipString();
      return;
    }
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      let depth = 0;
      do {
        const byte = body[at];
        if (byte === QUOTE) {
          skipString();
          continue;
        }
        if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
        at++;
      } while (depth > 0 && at < body.length);
      if (depth > 0) throw new RangeError('unterminated value');
      return;
    }
    // A number, true, false or null: up to the next delimiter.
    while (at < body.length && body[at] !== COMMA && body[at] !== CLOSE_OBJECT && !isSpace(body[at])) at++;
  };

  try {
    skipSpace();
    if (body[at] !== OPEN_OBJECT) return undefined;
    at++;
    const members: RawMember[] = [];
    skipSpace();
    if (body[at] === CLOSE_OBJECT) return members;
    for (;;) {
      skipSpace();
      if (body[at] !== QUOTE) return undefined;
      const keyStart = at;
      skipString();
      const key: unknown = JSON.parse(Buffer.from(body.subarray(keyStart, at)).toString('utf8'));
      if (typeof key !== 'string') return undefined;
      skipSpace();
      if (body[at] !== COLON) return undefined;
      at++;
      skipSpace();
      const start = at;
      skipValue();
      members.push({ key, start, end: at });
      skipSpace();
      if (body[at] === COMMA) {
        at++;
        continue;
      }
      if (body[at] !== CLOSE_OBJECT) return undefined;
      at++;
      skipSpace();
      return at === body.length ? members : undefined;
    }
  } catch {
    return undefined;
  }
}

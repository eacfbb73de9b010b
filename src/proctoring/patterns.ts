import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { PATTERN_FLAGS } from './assumptions.js';

/**
 * The page patterns (exam_start, exam_take, exam_end) are JavaScript regular expressions written by
 * instructors. The tool itself never runs them with a backtracking engine: it evaluates them with RE2
 * semantics (re2js, linear in the length of the text), so no pattern can stall a thread.
 *
 * A pattern is accepted only when JavaScript and RE2 both read it, and read it the same way:
 * constructs RE2 cannot express (backreferences, lookaround) and constructs the two engines read
 * differently (escaped letters JavaScript takes literally, `[]`, POSIX classes…) are refused with a
 * sentence that names them. `.`, `\s` and `\S` are translated to their JavaScript meaning.
 * docs/launch-api.md lists the accepted subset.
 */

/** Longest pattern evaluated (the Launch API's longest page pattern, exam_take, is 1000 characters). */
export const MAX_PATTERN_LENGTH = 1000;
/** Longest text a pattern is matched against (launch URLs are at most 600 characters). */
export const MAX_SUBJECT_LENGTH = 1000;
/**
 * RE2's own measure of a compiled pattern's cost; matching time grows with it times the text length.
 * URL patterns stay far below (the presets: under 200; `(.{100}){10}` is about 1000). bench/patterns.ts
 * times the slowest accepted patterns found.
 */
export const MAX_PROGRAM_SIZE = 2000;

export interface PatternProblem {
  /** The construct refused, as written in the pattern, when one is to blame. */
  construct?: string;
  /** Sentence ending after the field's label, e.g. "uses a lookahead `(?=`, which …". */
  reason: string;
}

export type CompiledPattern = { ok: true; test(subject: string): boolean } | ({ ok: false } & PatternProblem);

// JavaScript's \s: WhiteSpace and LineTerminator (ECMA-262 §22.2.2.9, CharacterClassEscape).
const JS_SPACES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

const hex = (code: number) => `\\x{${code.toString(16)}}`;
const rangeText = ([from, to]: readonly [number, number]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`);

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  out.push([next, 0x10ffff]);
  return out;
}

/** Class bodies (without brackets) with JavaScript's meaning, for use in RE2 syntax. */
const SPACE_BODY = JS_SPACES.map(rangeText).join('');
const NON_SPACE_BODY = complement(JS_SPACES).map(rangeText).join('');
// JavaScript's `.` without the s flag: anything but a line terminator (RE2's excludes only \n).
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** Escapes JavaScript gives a meaning to (without the u flag); any other escaped letter is the letter itself. */
const JS_CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const JS_CONTROL_ESCAPES = new Set(['f', 'n', 'r', 't', 'v']);

type Refusal = { ok: false } & PatternProblem;
type Translation = { ok: true; re2: string; estimatedSize: number } | Refusal;

/**
 * A rough count of the RE2 instructions a pattern compiles to (RE2 copies a repeated item once per
 * count), kept while translating so that a costly pattern is refused before it is compiled at all.
 */
class SizeEstimate {
  private readonly outermost = { done: 0, branch: 0, last: 0 };
  private readonly frames = [this.outermost];
  private get top() {
    return this.frames.at(-1) ?? this.outermost;
  }
  atom(): void {
    this.top.branch += 1;
    this.top.last = 1;
  }
  open(): void {
    this.frames.push({ done: 0, branch: 0, last: 0 });
  }
  close(): void {
    if (this.frames.length === 1) return;
    const group = this.frames.pop();
    if (!group) return;
    const size = group.done + group.branch + 2;
    this.top.branch += size;
    this.top.last = size;
  }
  alternative(): void {
    this.top.done += this.top.branch + 1;
    this.top.branch = 0;
    this.top.last = 0;
  }
  /** `*`, `+`, `?` add one instruction: repeat(1, 1); `{n}` is repeat(n, n); `{n,m}` copies the item n times, then m − n optional times. */
  repeat(min: number, max: number): void {
    const item = this.top.last;
    this.top.branch += item * Math.max(min - 1, 0) + (item + 1) * (max - min) + 1;
    this.top.last = 0;
  }
  get total(): number {
    return this.frames.reduce((sum, frame) => sum + frame.done + frame.branch, 0);
  }
}

const COUNTED_REPEAT = /^\{(\d+)(?:(,)(\d*))?\}/;
const MAX_REPEAT = 1000;
const tooLargeRepeat = (construct: string): Translation => refuse(construct, `uses a repetition \`${construct}\` that is too large to check safely (at most ${MAX_REPEAT}, also when nested).`);

const refuse = (construct: string, reason: string): Refusal => ({ ok: false, construct, reason });
const cannotCheck = (what: string, construct: string, advice: string) =>
  refuse(construct, `uses ${what} \`${construct}\`, which the tool cannot evaluate safely: ${advice}`);

/**
 * Rewrites a JavaScript pattern (already known to be valid JavaScript) into RE2 syntax with the same
 * meaning, or names the first construct that has no safe equivalent.
 */
export function translateToRe2(source: string): Translation {
  let out = '';
  let inClass = false;
  // Inside a class: what the previous item was, to spot ranges that involve \d, \w or \s.
  let previous: ClassPosition = 'start';
  const size = new SizeEstimate();
  const astral = /[\ud800-\udfff]{1,2}/.exec(source);
  if (astral) {
    return refuse(astral[0], 'contains a character outside the Basic Multilingual Plane (such as an emoji), which regular-expression engines count differently.');
  }
  for (let i = 0; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === '\\') {
      if (!inClass) size.atom();
      const escaped = translateEscape(source, i, inClass, previous);
      if (!escaped.ok) return escaped;
      out += escaped.re2;
      i = escaped.end;
      previous = escaped.previous;
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        out += ']';
        size.atom();
        continue;
      }
      if (c === '[') {
        if (source[i + 1] === ':' || source[i + 1] === '.' || source[i + 1] === '=') {
          return refuse(`[${source[i + 1]}`, `uses \`[${source[i + 1]}\` inside a character class, which other engines read as a POSIX class: write \\[ for a bracket.`);
        }
        out += '\\[';
        previous = 'atom';
        continue;
      }
      if (c === '-' && previous !== 'start' && source[i + 1] !== ']') {
        if (previous === 'classEscape') return refuse('-', rangeWithClassEscape);
        out += '-';
        previous = 'dash';
        continue;
      }
      out += c;
      previous = 'atom';
      continue;
    }
    switch (c) {
      case '[': {
        const negated = source[i + 1] === '^';
        const bodyStart = i + (negated ? 2 : 1);
        if (source[bodyStart] === ']') {
          const construct = negated ? '[^]' : '[]';
          return refuse(construct, `uses the empty class \`${construct}\`, which other engines read differently: write [\\s\\S] for any character.`);
        }
        out += negated ? '[^' : '[';
        i = bodyStart - 1;
        inClass = true;
        previous = 'start';
        break;
      }
      case ']':
        out += '\\]';
        size.atom();
        break;
      case '.':
        out += DOT;
        size.atom();
        break;
      case '(': {
        const rest = source.slice(i + 1, i + 4);
        if (rest.startsWith('?=') || rest.startsWith('?!')) return cannotCheck('a lookahead', `(${rest.slice(0, 2)}`, 'rewrite the pattern without it.');
        if (rest.startsWith('?<=') || rest.startsWith('?<!')) return cannotCheck('a lookbehind', `(${rest}`, 'rewrite the pattern without it.');
        out += '(';
        size.open();
        break;
      }
      case ')':
        out += ')';
        size.close();
        break;
      case '|':
        out += '|';
        size.alternative();
        break;
      case '*':
      case '+':
      case '?':
        out += c;
        // After another quantifier, `?` only makes it lazy.
        if (!/[*+?}]/.test(source[i - 1] ?? '') || source[i - 2] === '\\') size.repeat(1, 1);
        break;
      case '{': {
        const counted = COUNTED_REPEAT.exec(source.slice(i));
        if (!counted) {
          out += c;
          size.atom();
          break;
        }
        const [whole, min, comma, max] = counted;
        if (Number(min) > MAX_REPEAT || Number(max || 0) > MAX_REPEAT) return tooLargeRepeat(whole);
        out += whole;
        i += whole.length - 1;
        size.repeat(Number(min), max ? Number(max) : Number(min) + (comma ? 1 : 0));
        break;
      }
      default:
        out += c;
        size.atom();
    }
  }
  return { ok: true, re2: out, estimatedSize: size.total };
}

const rangeWithClassEscape = 'uses a range that starts or ends with \\d, \\w or \\s inside a character class, which engines read differently: put the - last in the class, or escape it as \\-.';

/** Inside a class: what the previous item was, to spot ranges that involve \d, \w or \s. */
type ClassPosition = 'start' | 'atom' | 'classEscape' | 'dash';

type EscapeTranslation = { ok: true; re2: string; end: number; previous: ClassPosition } | Refusal;

/**
 * The backslash escape at `at`: its RE2 form, the index of its last character and what it is as a class item,
 * or the reason it has no safe equivalent.
 */
function translateEscape(source: string, at: number, inClass: boolean, previous: ClassPosition): EscapeTranslation {
  const next = source[at + 1] ?? '';
  const escape = `\\${next}`;
  const end = at + 1;
  const done = (re2: string, item: ClassPosition, last = end): EscapeTranslation => ({ ok: true, re2, end: last, previous: item });
  if (/[1-9]/.test(next)) return cannotCheck('a backreference', escape, 'rewrite the pattern without it (an octal escape can be written as \\x followed by two hexadecimal digits).');
  if (next === 'k' && source[end + 1] === '<') return cannotCheck('a named backreference', '\\k<…>', 'rewrite the pattern without it.');
  if (next === 'b' && inClass) return refuse('[\\b]', 'uses `[\\b]` (backspace), which other regular-expression engines read differently: write \\x08 instead.');
  if (next === 'u') return refuse('\\u', 'uses a `\\u` escape: write the character itself, or \\x followed by two hexadecimal digits.');
  if (next === 'c') return refuse('\\c', 'uses a control escape `\\c`: write \\x followed by two hexadecimal digits instead.');
  if (next === 'x') {
    const digits = source.slice(end + 1, end + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(digits)) return refuse('\\x', 'uses `\\x` without two hexadecimal digits after it (JavaScript then reads a plain x): write x without the backslash.');
    return done(`\\x${digits}`, 'atom', end + 2);
  }
  if (next === 's' || next === 'S') {
    const body = next === 's' ? SPACE_BODY : NON_SPACE_BODY;
    if (inClass && previous === 'dash') return refuse(`-${escape}`, rangeWithClassEscape);
    return done(inClass ? body : next === 's' ? `[${body}]` : `[^${SPACE_BODY}]`, 'classEscape');
  }
  if (/[a-zA-Z]/.test(next)) {
    const meaningful = JS_CLASS_ESCAPES.has(next) || JS_CONTROL_ESCAPES.has(next) || (!inClass && (next === 'b' || next === 'B'));
    if (!meaningful) {
      return refuse(escape, `uses \`${escape}\`: JavaScript reads it as a plain "${next}", other engines as something else. Write the letter without the backslash.`);
    }
    if (!JS_CLASS_ESCAPES.has(next)) return done(escape, 'atom');
    if (inClass && previous === 'dash') return refuse(`-${escape}`, rangeWithClassEscape);
    return done(escape, 'classEscape');
  }
  // \0, and an escaped symbol, which is the symbol itself in both engines; RE2 reports anything else it refuses.
  return done(escape, 'atom');
}

function javascriptProblem(source: string): PatternProblem | undefined {
  try {
    // Only parsed (V8 compiles a pattern when it is first run, and it is never run here).
    new RegExp(source, PATTERN_FLAGS);
    return undefined;
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : '';
    return { reason: `must be a valid regular expression${detail ? ` (${detail})` : ''}.` };
  }
}

function re2Problem(message: string): PatternProblem {
  const detail = message.replace(/^error parsing regexp: /, '');
  const repeat = /^invalid repeat count: `(.*)`$/.exec(detail);
  if (repeat?.[1] !== undefined) {
    const refused = tooLargeRepeat(repeat[1]);
    return { construct: repeat[1], reason: refused.ok ? detail : refused.reason };
  }
  const construct = /`([^`]*)`$/.exec(detail)?.[1];
  return { construct, reason: `uses syntax the tool cannot evaluate safely (${detail}): keep to the constructs listed in the documentation.` };
}

const tooComplex: CompiledPattern = { ok: false, reason: 'is too complex to check safely: use fewer or smaller repetitions.' };

const cache = new LRUCache<string, CompiledPattern>({ max: 500 });

/** Compiles a page pattern for safe evaluation, or says what is wrong with it. Results are cached. */
export function compilePagePattern(source: string): CompiledPattern {
  const cached = cache.get(source);
  if (cached) return cached;
  const compiled = compileUncached(source);
  cache.set(source, compiled);
  return compiled;
}

function compileUncached(source: string): CompiledPattern {
  if (source.length > MAX_PATTERN_LENGTH) return { ok: false, reason: `must be at most ${MAX_PATTERN_LENGTH} characters long.` };
  const invalid = javascriptProblem(source);
  if (invalid) return { ok: false, ...invalid };
  const translated = translateToRe2(source);
  if (!translated.ok) return translated;
  // Compiling costs time in proportion to the program: refuse what is sure to exceed the bound first.
  if (translated.estimatedSize > 1.25 * MAX_PROGRAM_SIZE) return tooComplex;
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(translated.re2);
  } catch (error) {
    return { ok: false, ...re2Problem(error instanceof Error ? error.message : String(error)) };
  }
  if (re2.programSize() > MAX_PROGRAM_SIZE) return tooComplex;
  return { ok: true, test: (subject) => subject.length <= MAX_SUBJECT_LENGTH && re2.test(subject) };
}

/** What is wrong with a page pattern, or undefined when the tool accepts it. */
export function pagePatternProblem(source: string): PatternProblem | undefined {
  const compiled = compilePagePattern(source);
  return compiled.ok ? undefined : { construct: compiled.construct, reason: compiled.reason };
}

/**
 * Whether the pattern finds a match in the subject, as `new RegExp(source).test(subject)` would;
 * undefined when the pattern is refused (see pagePatternProblem) or the subject is too long.
 */
export function patternMatches(source: string, subject: string): boolean | undefined {
  const compiled = compilePagePattern(source);
  if (!compiled.ok || subject.length > MAX_SUBJECT_LENGTH) return undefined;
  return compiled.test(subject);
}

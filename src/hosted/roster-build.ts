/**
 * The roster body the Launch API expects (spec: roster_url): a JSON array of [id, name] pairs, each id a
 * user_id exactly as launches send it, no id twice. Pure: no HTTP, no LTI library.
 */

/** What a Names and Roles member carries that the roster needs. */
export interface RosterSourceMember {
  userId: string;
  status: string;
  name?: string;
  givenName?: string;
  familyName?: string;
}

export type RosterPair = [id: string, name: string];

export interface Roster {
  pairs: RosterPair[];
  /** Active members listed without any name (LMS privacy settings): their pair carries ''. */
  unnamed: number;
  /** Members left out because their enrolment is not active (Inactive, Deleted). */
  inactive: number;
  /** Repeated listings of one person (several sections or enrolments): kept once. */
  duplicates: number;
}

/**
 * The name as the LMS gives it, in whatever script: `name` untouched; only when it is absent or blank
 * the given and family names joined with a space (the LMS gives no order for those); '' when none.
 */
export function memberName(member: Pick<RosterSourceMember, 'name' | 'givenName' | 'familyName'>): string {
  if (member.name !== undefined && member.name.trim() !== '') return member.name;
  return [member.givenName, member.familyName]
    .filter((part): part is string => part !== undefined && part.trim() !== '')
    .map((part) => part.trim())
    .join(' ');
}

/** NRPS 2.0 §2.3: status is Active, Inactive or Deleted, Active when absent. */
export function isActive(member: Pick<RosterSourceMember, 'status'>): boolean {
  return member.status.trim().toLowerCase() === 'active';
}

/** `idOf` turns the LMS user id into the user_id launches send (identifiers.ts deriveUserId). */
export function buildRoster(members: Iterable<RosterSourceMember>, idOf: (lmsUserId: string) => string): Roster {
  const names = new Map<string, string>();
  let inactive = 0;
  let duplicates = 0;
  for (const member of members) {
    if (!isActive(member)) {
      inactive++;
      continue;
    }
    const id = idOf(member.userId);
    const name = memberName(member);
    const known = names.get(id);
    if (known !== undefined) {
      duplicates++;
      // A repeated listing may be the one that carries the name.
      if (known === '' && name !== '') names.set(id, name);
      continue;
    }
    names.set(id, name);
  }
  const pairs: RosterPair[] = [...names].map(([id, name]) => [id, name]);
  return { pairs, unnamed: pairs.filter(([, name]) => name === '').length, inactive, duplicates };
}

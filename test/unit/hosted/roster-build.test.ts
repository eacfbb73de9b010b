import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildExamRoster } from '../../../src/hosted/exam-roster.js';
import { buildRoster, memberName } from '../../../src/hosted/roster-build.js';

const idOf = (userId: string) => `id-${userId}`;

describe('roster pairs', () => {
  it('maps active members to [user_id, name] with names in any script, as given', () => {
    const roster = buildRoster(
      [
        { userId: '5', status: 'Active', name: 'María José Núñez' },
        { userId: '4', status: 'Active', name: '李明' },
        { userId: '6', status: 'active', name: 'فاطمة الزهراء' },
        { userId: '3', status: 'Active', name: '  Олена Коваленко ' },
      ],
      idOf,
    );
    assert.deepEqual(roster.pairs, [
      ['id-5', 'María José Núñez'],
      ['id-4', '李明'],
      ['id-6', 'فاطمة الزهراء'],
      ['id-3', '  Олена Коваленко '],
    ]);
    assert.equal(JSON.parse(JSON.stringify(roster.pairs))[1][1], '李明');
  });

  it('leaves out inactive and deleted members and lists each person once', () => {
    const roster = buildRoster(
      [
        { userId: '1', status: 'Active', name: 'Ana' },
        { userId: '2', status: 'Inactive', name: 'Ben' },
        { userId: '3', status: 'Deleted', name: 'Cy' },
        { userId: '1', status: 'Active', name: 'Ana (section B)' },
      ],
      idOf,
    );
    assert.deepEqual(roster.pairs, [['id-1', 'Ana']]);
    assert.equal(roster.inactive, 2);
    assert.equal(roster.duplicates, 1);
  });

  it('counts members without a name (privacy settings) and gives them an empty name', () => {
    const roster = buildRoster(
      [
        { userId: '1', status: 'Active' },
        { userId: '2', status: 'Active', name: '   ' },
        { userId: '3', status: 'Active', givenName: 'Ana', familyName: 'Lima' },
      ],
      idOf,
    );
    assert.deepEqual(roster.pairs, [['id-1', ''], ['id-2', ''], ['id-3', 'Ana Lima']]);
    assert.equal(roster.unnamed, 2);
  });

  it('takes the name from a repeated listing when the first had none', () => {
    const roster = buildRoster([{ userId: '1', status: 'Active' }, { userId: '1', status: 'Active', name: 'Ana' }], idOf);
    assert.deepEqual(roster.pairs, [['id-1', 'Ana']]);
    assert.equal(roster.unnamed, 0);
  });

  it('memberName prefers name over given and family names', () => {
    assert.equal(memberName({ name: 'Dr. Ana Lima', givenName: 'Ana', familyName: 'Lima' }), 'Dr. Ana Lima');
    assert.equal(memberName({ givenName: 'Ana' }), 'Ana');
    assert.equal(memberName({}), '');
  });
});

describe('exam roster entries', () => {
  it('lists configured exams with name, tag, section and roster URL', () => {
    const entries = buildExamRoster({
      exams: [
        { title: 'Final', resourceLinkId: 'rl-2', settings: { exam_settings: {} } },
        { title: 'Not configured yet', resourceLinkId: 'rl-3', settings: null },
      ],
      sectionId: 'sec-1',
      examTagOf: (rl) => `ex-${rl}`,
      rosterUrl: 'https://tool.example/hosted/roster?t=x',
    });
    assert.deepEqual(entries, [{ exam_name: 'Final', exam_tag: 'ex-rl-2', section_id: 'sec-1', roster_url: 'https://tool.example/hosted/roster?t=x' }]);
  });

  it('omits roster_url when the course has no Names and Roles', () => {
    const entries = buildExamRoster({ exams: [{ title: 'Final', resourceLinkId: 'rl', settings: {} }], sectionId: 's', examTagOf: () => 't' });
    assert.equal('roster_url' in entries[0]!, false);
  });
});

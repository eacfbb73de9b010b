/** The demo LMS's people and its one course: plain data, no LTI. */

export type DemoRole = 'learner' | 'instructor' | 'teaching-assistant' | 'proctor' | 'test-student' | 'administrator';

export type DemoUserKey = 'student' | 'instructor' | 'ta' | 'proctor' | 'test-student' | 'admin';

export interface DemoPerson {
  /** The LMS user id: `sub` in launches, `login_hint`, `user_id` in Names and Roles. */
  id: string;
  username: string;
  name: string;
  given_name: string;
  family_name: string;
  /** Absent for Canvas's student-view user. */
  email?: string;
  role: DemoRole;
  status: 'Active' | 'Inactive';
}

export interface DemoUser extends DemoPerson {
  key: DemoUserKey;
  /** What the course page calls this person ("a student", "an instructor"), and the bare role name. */
  label: string;
  roleName: string;
  /** Enrolled users appear in Names and Roles; the admin and the test student do not. */
  enrolled: boolean;
}

export interface DemoLink {
  id: string;
  title: string;
  text?: string;
  /** The tool URL the link launches; absent: the tool's launch URL. */
  url?: string;
  custom?: Record<string, string>;
}

export interface DemoCourse {
  id: string;
  label: string;
  title: string;
  /** The proctored exam resource link the course starts with. */
  exam: DemoLink;
  /** Every resource link of the course: the exam first, then links added by deep linking. */
  links: DemoLink[];
}

const USERS: readonly DemoUser[] = [
  {
    key: 'student',
    label: 'a student',
    roleName: 'student',
    id: '5',
    username: 'mjnunez',
    name: 'María José Núñez',
    given_name: 'María José',
    family_name: 'Núñez',
    email: 'maria.nunez@students.demo-lms.example',
    role: 'learner',
    status: 'Active',
    enrolled: true,
  },
  {
    key: 'instructor',
    label: 'an instructor',
    roleName: 'instructor',
    id: '3',
    username: 'okovalenko',
    name: 'Олена Коваленко',
    given_name: 'Олена',
    family_name: 'Коваленко',
    email: 'olena.kovalenko@demo-lms.example',
    role: 'instructor',
    status: 'Active',
    enrolled: true,
  },
  {
    key: 'ta',
    label: 'a teaching assistant',
    roleName: 'teaching assistant',
    id: '4',
    username: 'liming',
    // Chinese names are written family name first, without a space.
    name: '李明',
    given_name: '明',
    family_name: '李',
    email: 'li.ming@demo-lms.example',
    role: 'teaching-assistant',
    status: 'Active',
    enrolled: true,
  },
  {
    key: 'proctor',
    label: 'a proctor',
    roleName: 'proctor',
    id: '6',
    username: 'fzahra',
    name: 'فاطمة الزهراء',
    given_name: 'فاطمة',
    family_name: 'الزهراء',
    email: 'fatima.alzahra@demo-lms.example',
    role: 'proctor',
    status: 'Active',
    enrolled: true,
  },
  {
    key: 'test-student',
    label: 'the test student (Canvas: Student View; Moodle: the instructor switched to the Student role)',
    roleName: 'test student',
    id: '7',
    username: 'teststudent',
    name: 'Test Student',
    given_name: 'Test',
    family_name: 'Student',
    role: 'test-student',
    status: 'Active',
    enrolled: false,
  },
  {
    key: 'admin',
    label: 'the site administrator (not enrolled)',
    roleName: 'site administrator',
    id: '2',
    username: 'admin',
    name: 'Admin User',
    given_name: 'Admin',
    family_name: 'User',
    email: 'admin@demo-lms.example',
    role: 'administrator',
    status: 'Active',
    enrolled: false,
  },
];

export function demoUsers(): DemoUser[] {
  return USERS.map((user) => ({ ...user }));
}

export function createDemoCourse(): DemoCourse {
  const exam: DemoLink = {
    id: 'exam-midterm',
    title: 'Midterm exam',
    text: 'Proctored. 60 minutes, one attempt. Have your ID card ready.',
  };
  return { id: 'course-101', label: 'STAT101', title: 'Demo Course 101 — Statistics', exam, links: [exam] };
}

// Pools per script, so rosters exercise UTF-8 end to end. Pairs where the family name agrees with the
// given name's gender (Slavic and Greek family names do).
const CHINESE = { family: ['王', '李', '张', '刘', '陈', '杨', '黄', '赵', '周', '吴'], given: ['伟', '芳', '娜', '秀英', '敏', '静', '磊', '洋', '艳', '勇'] };
const ARABIC = {
  given: ['محمد', 'مريم', 'أحمد', 'ليلى', 'علي', 'نور', 'يوسف', 'سارة', 'عمر', 'هدى'],
  family: ['العلي', 'الحسن', 'الخطيب', 'المصري', 'حداد', 'الشامي', 'منصور'],
};
const CYRILLIC: ReadonlyArray<readonly [string, string]> = [
  ['Иван', 'Петров'],
  ['Анна', 'Смирнова'],
  ['Дмитрий', 'Соколов'],
  ['Екатерина', 'Волкова'],
  ['Сергей', 'Кузнецов'],
  ['Ольга', 'Попова'],
  ['Алексей', 'Морозов'],
  ['Мария', 'Лебедева'],
];
const GREEK: ReadonlyArray<readonly [string, string]> = [
  ['Γιώργος', 'Παπαδόπουλος'],
  ['Ελένη', 'Παπαδοπούλου'],
  ['Νίκος', 'Οικονόμου'],
  ['Μαρία', 'Γεωργίου'],
  ['Δημήτρης', 'Αντωνίου'],
  ['Αικατερίνη', 'Νικολάου'],
];
const ACCENTED = {
  given: ['José', 'Zoë', 'François', 'Søren', 'Łukasz', 'Ágnes', 'Çağla', 'Jürgen', 'Inês', 'Thảo', 'Renée', 'Björn'],
  family: ['Müller', 'Lefèvre', 'Wróbel', 'Szőke', 'Yılmaz', 'Nguyễn', 'Ødegaard', 'Gonçalves', 'Dvořák', 'Ñúñez-García'],
};

function pick<T>(list: readonly T[], index: number): T {
  const item = list[index % list.length];
  if (item === undefined) throw new Error('empty name pool');
  return item;
}

/** The nth generated learner: deterministic, so tests and screenshots are stable. */
function generatedLearner(n: number): DemoPerson {
  const id = String(100 + n);
  const round = Math.floor(n / 5);
  let given: string;
  let family: string;
  let name: string;
  switch (n % 5) {
    case 0:
      given = pick(CHINESE.given, round);
      family = pick(CHINESE.family, round * 3 + 1);
      name = `${family}${given}`;
      break;
    case 1:
      given = pick(ARABIC.given, round);
      family = pick(ARABIC.family, round * 2 + 1);
      name = `${given} ${family}`;
      break;
    case 2:
      [given, family] = pick(CYRILLIC, round);
      name = `${given} ${family}`;
      break;
    case 3:
      [given, family] = pick(GREEK, round);
      name = `${given} ${family}`;
      break;
    default:
      given = pick(ACCENTED.given, round);
      family = pick(ACCENTED.family, round * 7 + 3);
      name = `${given} ${family}`;
  }
  return {
    id,
    username: `s${id}`,
    name,
    given_name: given,
    family_name: family,
    email: `s${id}@students.demo-lms.example`,
    role: 'learner',
    // About one in fifteen has left the course: two in a class of 30.
    status: n % 15 === 7 ? 'Inactive' : 'Active',
  };
}

/** The course's members for Names and Roles: the enrolled named users, then `classSize` generated learners. */
export function classMembers(users: readonly DemoUser[], classSize: number): DemoPerson[] {
  const named: DemoPerson[] = users
    .filter((user) => user.enrolled)
    .map(({ id, username, name, given_name, family_name, email, role, status }) => ({
      id,
      username,
      name,
      given_name,
      family_name,
      email,
      role,
      status,
    }));
  const generated = Array.from({ length: classSize }, (_, n) => generatedLearner(n));
  return [...named, ...generated];
}

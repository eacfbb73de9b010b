// The alert rules and the Grafana dashboard against what the tool really exports: every expression parses as
// PromQL (Prometheus's own grammar), every series it selects, with the labels it matches on, is in /metrics
// after a launch, a refused launch, a rate-limited request and a database error; every alert has a runbook.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parser } from '@prometheus-io/lezer-promql';
import supertest from 'supertest';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { launchAs } from '../../helpers/launches.js';
import { authorize, postIdToken } from '../../helpers/lti-flow.js';
import { VERSION } from '../../../src/version.js';
import { sample } from '../../helpers/metrics.js';

const TOKEN = 'metrics-token-0123456789abcdef';
/** Series Prometheus makes for every target itself, and labels it adds to every series it scrapes. */
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);
const TARGET_LABELS = new Set(['job', 'instance']);
/** Grafana's variables, replaced the way Grafana does before the query reaches Prometheus. */
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '1m', $__interval: '15s', $__range: '1h' };

interface Rule {
  alert: string;
  expr: string;
  labels?: { severity?: string };
  annotations: { summary?: string; description?: string; runbook_url?: string };
}
interface Panel {
  title: string;
  targets?: Array<{ expr?: string }>;
}

const rules = (parse(readFileSync('deploy/monitoring/alerts.yaml', 'utf8')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((group) => group.rules);
const dashboard = JSON.parse(readFileSync('deploy/monitoring/grafana-dashboard.json', 'utf8')) as { panels: Panel[] };

/** Series names in Prometheus's text format, each with the label names it was exported with. */
function exportedSeries(text: string): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? /.exec(line);
    assert.ok(match, `unreadable line of /metrics: ${line}`);
    const labels = series.get(match[1]!) ?? new Set<string>();
    for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(label[1]!);
    series.set(match[1]!, labels);
  }
  return series;
}

/** One value of Prometheus's text format, 0 when the series is absent. */
interface Selector {
  name: string;
  labels: string[];
}

/** Parses one PromQL expression (failing on a syntax error) and lists its series selectors. */
function selectorsOf(expression: string, where: string): Selector[] {
  const tree = parser.parse(expression);
  const selectors: Selector[] = [];
  let current: Selector | undefined;
  tree.iterate({
    enter(node) {
      assert.ok(!node.type.isError, `${where}: PromQL syntax error at ${node.from} in ${expression}`);
      const text = expression.slice(node.from, node.to);
      if (node.name === 'VectorSelector') {
        current = { name: '', labels: [] };
        selectors.push(current);
      } else if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector' && current) current.name = text;
      else if (node.name === 'LabelName' && node.node.parent?.name === 'UnquotedLabelMatcher' && current) current.labels.push(text);
    },
  });
  assert.ok(selectors.length > 0, `${where}: selects no series`);
  return selectors;
}

const grafanaExpression = (expression: string) => Object.entries(GRAFANA_VARIABLES).reduce((text, [variable, value]) => text.split(variable).join(value), expression);

const expressions = (): Array<{ where: string; expr: string }> => [
  ...rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: grafanaExpression(target.expr ?? '') }))),
];

describe('alerts and dashboard against the exported series', () => {
  let app: TestApp;
  let request: ReturnType<typeof supertest>;
  const scrape = async () => {
    const response = await request.get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    assert.equal(response.status, 200);
    return response.text;
  };

  before(async () => {
    app = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_REGISTER: '1' });
    request = supertest(app.baseUrl);
  });
  after(async () => {
    await app.close();
  });

  /** A launch whose id_token's signature was tampered with: refused with 401. */
  const refusedLaunch = async () => {
    const auth = await authorize(app, { user: 'student', presentation: 'window' });
    const forged = `${auth.idToken.slice(0, -4)}${auth.idToken.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const refused = await postIdToken(auth, forged);
    assert.equal(refused.status, 401, refused.text.slice(0, 300));
  };
  /** Two requests of the registration page, whose limit is one a window: how many the limiter refused (1, or 2 once the window was used). */
  const rateLimited = async () => {
    let refused = 0;
    for (let i = 0; i < 2; i++) if ((await request.get('/lti/register')).status === 429) refused += 1;
    assert.ok(refused >= 1, 'the second request in the window is refused');
    return refused;
  };

  it('a refused id_token moves the refused launches by reason; a rate-limited request moves its limiter', async () => {
    const before = await scrape();
    await refusedLaunch();
    const limited = await rateLimited();
    const text = await scrape();
    const delta = (series: string) => sample(text, series) - sample(before, series);
    assert.equal(delta('proctor_lti_refused_launches_total{reason="bad_signature"}'), 1);
    assert.equal(delta('proctor_lti_http_responses_total{route="lti_launch",status="401"}'), 1);
    assert.equal(delta('proctor_lti_rate_limited_requests_total{limiter="lti-register"}'), limited);
    assert.equal(delta('proctor_lti_http_responses_total{route="lti_setup",status="429"}'), limited);
  });

  it('exports the build info: the version in package.json and the Node.js version', async () => {
    const text = await scrape();
    assert.equal(sample(text, `proctor_lti_build_info{version="${VERSION}",nodejs="${process.version}"}`), 1);
    assert.equal(VERSION, (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
  });

  it('every alert and dashboard expression parses and selects only series (and labels) the tool exports', async () => {
    // Every kind of event an expression selects, whatever ran before: a launch, a refused one, a rate-limited
    // request and a database error.
    assert.equal((await launchAs(app, { user: 'student', flavor: 'canvas', presentation: 'window' })).response.status, 302);
    await refusedLaunch();
    await rateLimited();
    await assert.rejects(app.db.query('SELECT * FROM no_such_table'));
    const series = exportedSeries(await scrape());
    assert.ok(series.has('proctor_lti_database_errors_total'));
    for (const { where, expr } of expressions()) {
      for (const selector of selectorsOf(expr, where)) {
        if (SCRAPE_SERIES.has(selector.name)) continue;
        const labels = series.get(selector.name);
        assert.ok(labels, `${where}: ${selector.name} is not in /metrics`);
        for (const label of selector.labels) assert.ok(TARGET_LABELS.has(label) || labels.has(label), `${where}: ${selector.name} has no label ${label}`);
      }
    }
  });
});

describe('alert rules', () => {
  it('cover a total outage, failing launches, an unavailable database and Launch API errors', () => {
    const names = new Set(rules.map((rule) => rule.alert));
    for (const name of ['ProctorLtiAllReplicasDown', 'ProctorLtiLaunchesFailing', 'ProctorLtiDatabaseUnavailable', 'ProctorLtiLaunchApiErrors']) assert.ok(names.has(name), name);
    assert.equal(names.size, rules.length, 'alert names are unique');
  });

  it('each has a severity, a summary and a runbook in docs/runbooks/ that names the alert', () => {
    for (const rule of rules) {
      assert.match(rule.labels?.severity ?? '', /^(critical|warning)$/, `${rule.alert}: severity`);
      assert.ok(rule.annotations.summary && rule.annotations.description, `${rule.alert}: summary and description`);
      const runbook = /\/(docs\/runbooks\/[a-z0-9-]+\.md)$/.exec(rule.annotations.runbook_url ?? '')?.[1];
      assert.ok(runbook, `${rule.alert}: runbook_url names a file of docs/runbooks/`);
      assert.ok(existsSync(runbook), `${rule.alert}: ${runbook} exists`);
      assert.match(readFileSync(runbook, 'utf8'), new RegExp(`\\b${rule.alert}\\b`), `${runbook} names ${rule.alert}`);
    }
  });
});

describe('runbooks', () => {
  it('docs/runbooks/README.md lists every runbook, and their relative links point at files that exist', () => {
    const runbooks = readdirSync('docs/runbooks').filter((name) => name.endsWith('.md'));
    const index = readFileSync('docs/runbooks/README.md', 'utf8');
    for (const name of runbooks.filter((file) => file !== 'README.md')) assert.ok(index.includes(`](${name})`), `the index links ${name}`);
    for (const name of runbooks) {
      const file = join('docs/runbooks', name);
      for (const match of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s#]+\.md)(?:#[^)]*)?\)/g)) {
        assert.ok(existsSync(normalize(join(dirname(file), match[1]!))), `${file}: ${match[1]} exists`);
      }
    }
  });
});

describe('dashboard', () => {
  it('every panel has a query', () => {
    assert.ok(dashboard.panels.length >= 10);
    for (const panel of dashboard.panels) {
      const queries = (panel.targets ?? []).filter((target) => (target.expr ?? '').trim() !== '');
      assert.ok(queries.length > 0 && queries.length === (panel.targets ?? []).length, `panel "${panel.title}" has a query in every target`);
    }
  });
});

// The layers of src/ (docs/architecture.md, "Layers"), checked by `npm run lint`.
// A unit is a folder of src/ or a file directly in it. A unit may import every unit of a lower layer and the
// units of its own layer listed as its peers; nothing else of src/. Type-only imports count as imports.
// Peers form no cycle (checked below), so no two units import each other, not even through others.

/** From the bottom up: each layer's units, each with the units of its own layer it may import. */
const LAYERS = [
  {
    name: 'base',
    units: {
      'config.ts': ['secrets'],
      'dev-encryption-key.ts': [],
      i18n: [],
      'logger.ts': [],
      'metrics.ts': ['version.ts'],
      net: [],
      secrets: [],
      text: [],
      'user-agent.ts': ['version.ts'],
      'values.ts': [],
      'version.ts': [],
    },
  },
  { name: 'infrastructure', units: { db: [], http: ['db'] } },
  { name: 'integrations', units: { lti: [], proctoring: [] } },
  {
    name: 'features',
    units: {
      institution: [],
      platforms: [],
      exams: ['institution'],
      hosted: ['exams', 'institution'],
      webhooks: ['exams', 'hosted'],
      launches: ['exams', 'hosted', 'institution', 'webhooks'],
      retention: [],
    },
  },
  {
    name: 'edges',
    units: {
      control: [],
      sandbox: [],
      admin: [],
      'app.ts': ['admin', 'sandbox'],
      cli: ['admin', 'app.ts', 'control', 'sandbox'],
      'main.ts': ['app.ts', 'cli', 'control'],
    },
  },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The paths of a unit's files: everything under a folder, or the one file. */
const pathsOf = (units) => `^src/(${units.map((unit) => (unit.endsWith('.ts') ? `${escape(unit)}$` : `${escape(unit)}/`)).join('|')})`;

function assertPeersAcyclic(units) {
  const state = new Map();
  const visit = (unit, trail) => {
    if (state.get(unit) === 'done') return;
    if (state.get(unit) === 'open') throw new Error(`.dependency-cruiser.cjs: peers form a cycle: ${[...trail, unit].join(' → ')}`);
    state.set(unit, 'open');
    for (const peer of units[unit] ?? []) {
      if (!(peer in units)) throw new Error(`.dependency-cruiser.cjs: ${unit}'s peer ${peer} is not in its layer`);
      visit(peer, [...trail, unit]);
    }
    state.set(unit, 'done');
  };
  for (const unit of Object.keys(units)) visit(unit, []);
}

const layerRules = LAYERS.flatMap((layer, index) => {
  assertPeersAcyclic(layer.units);
  const lower = LAYERS.slice(0, index).flatMap((below) => Object.keys(below.units));
  return Object.entries(layer.units).map(([unit, peers]) => ({
    name: `layer-${layer.name}-${unit}`,
    comment: `${unit} (${layer.name}) may import ${lower.length > 0 ? 'the layers below it' : 'no other layer'}${peers.length > 0 ? ` and ${peers.join(', ')}` : ''}`,
    severity: 'error',
    from: { path: pathsOf([unit]) },
    to: { path: '^src/', pathNot: pathsOf([unit, ...lower, ...peers]) },
  }));
});

const allUnits = LAYERS.flatMap((layer) => Object.keys(layer.units));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'unit-without-layer',
      comment: 'every folder of src/ (and file directly in it) belongs to a layer: add it to LAYERS and docs/architecture.md',
      severity: 'error',
      from: { path: '^src/', pathNot: pathsOf(allUnits) },
      to: {},
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    includeOnly: '^src/',
  },
};

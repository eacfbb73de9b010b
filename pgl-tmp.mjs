import { PGlite } from '@electric-sql/pglite';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
async function make(opts) {
  const pg = await PGlite.create(opts);
  await pg.query('CHECKPOINT');
  const blob = await pg.dumpDataDir('none');
  await pg.close();
  return blob;
}
for (const [name, opts] of [['default', {}], ['wal1', { initDbStartParams: ['--wal-segsize=1'] }]]) {
  const blob = await make(opts);
  const buf = Buffer.from(await blob.arrayBuffer());
  const times = [];
  for (let i = 0; i < 3; i++) { const t = cpu(); const pg = await PGlite.create({ loadDataDir: new Blob([buf]) }); await pg.query('select 1'); times.push((cpu() - t).toFixed(2)); await pg.close(); }
  console.log(name, buf.length, times.join(' '));
}

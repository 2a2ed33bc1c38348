// checker.js - runs the solution in check/ against check/asserts.json.
//
// Shared by the js and ts languages (`node checker.js --ts` always
// transpiles; plain js is transpiled only when it uses import/export).  Like
// Codebattle's js image: the shortest file name in check/ containing
// "solution" is loaded into a vm context whose require() knows only lodash
// and rambda; the solution is module.exports, or its .default.  Each call's
// console output is captured (lines cut at 100 characters plus " ...");
// output printed while loading becomes a leading {"type":"output"} item.
// The user code gets no `process`, so it cannot write to the real stdout;
// the JSON array is printed last on a line of its own.
'use strict';

const fs = require('fs');
const path = require('path');
const util = require('util');
const vm = require('vm');

const HERE = __dirname;
const CHECK = path.join(HERE, 'check');
// Where install-toolchains puts lodash, rambda and typescript (npm), then
// Debian's node module directory.
const MODULE_PATHS = [
  process.env.RUNCELL_NODE_MODULES || '/opt/runcell/node/node_modules',
  path.join(HERE, 'node_modules'),
  '/usr/share/nodejs',
  '/usr/lib/nodejs',
];
const ALLOWED = new Set(['lodash', 'rambda']);
const MAX_LINE = 100;

function hostRequire(name) {
  return require(require.resolve(name, { paths: MODULE_PATHS }));
}

function fail(message) {
  process.stderr.write(message + '\n');
  process.exit(1);
}

function transpile(source) {
  const ts = hostRequire('typescript');
  return ts.transpile(source, {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.CommonJS,
  });
}

function makeConsole(sink) {
  const line = (...args) => {
    let text = util.format(...args);
    if (text.length > MAX_LINE) text = text.slice(0, MAX_LINE) + ' ...';
    sink.push(text + '\n');
  };
  return { log: line, info: line, warn: line, error: line, debug: line, trace: line, dir: line, table: line };
}

function main() {
  const forceTs = process.argv.includes('--ts');
  const calls = JSON.parse(fs.readFileSync(path.join(CHECK, 'asserts.json'), 'utf8')).arguments;
  const candidates = fs.readdirSync(CHECK).filter((f) => f.includes('solution'))
    .sort((a, b) => a.length - b.length || a.localeCompare(b));
  if (candidates.length === 0) fail('no solution file in check/');
  const file = path.join(CHECK, candidates[0]);

  let sink = [];
  const module = { exports: {} };
  const sandbox = {
    module,
    exports: module.exports,
    require: (name) => {
      if (!ALLOWED.has(name)) throw new Error(`Cannot find module '${name}'`);
      return hostRequire(name);
    },
    console: makeConsole({ push: (s) => sink.push(s) }),
    setTimeout, clearTimeout, setInterval, clearInterval,
  };
  let solution;
  try {
    let source = fs.readFileSync(file, 'utf8');
    if (forceTs || /^\s*(import|export)\b/m.test(source)) source = transpile(source);
    vm.runInNewContext(source, sandbox, { filename: file });
    solution = sandbox.module.exports;
    if (typeof solution !== 'function' && solution) solution = solution.default;
    if (typeof solution !== 'function') throw new TypeError('solution is not a function');
  } catch (e) {
    fail(e && e.stack ? e.stack : String(e));
  }

  const items = [];
  if (sink.length > 0) items.push({ type: 'output', value: '', output: sink.join(''), time: '0.00000' });
  for (const args of calls) {
    sink = [];
    const start = process.hrtime.bigint();
    let item;
    try {
      const value = solution(...args);
      item = { type: 'result', value: value === undefined ? null : value };
    } catch (e) {
      item = { type: 'error', value: e && e.message !== undefined ? String(e.message) : String(e) };
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    item.output = sink.join('');
    item.time = seconds.toFixed(5);
    try {
      JSON.stringify(item);
    } catch (e) {
      item = { type: 'error', value: `result is not JSON: ${e.message}`, output: item.output, time: item.time };
    }
    items.push(item);
  }
  process.stdout.write('\n' + JSON.stringify(items) + '\n');
}

main();

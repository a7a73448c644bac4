'use strict';
// Every ```js example of docs/node.md, run as a script inside the package (so that
// `require('crawlgate')` resolves to it). An example that throws fails the test.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { REPO } = require('./helpers.js');

const doc = fs.readFileSync(path.join(REPO, 'docs', 'node.md'), 'utf8');
const examples = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test('docs/node.md has its examples', () => {
  assert.ok(examples.length >= 4, String(examples.length));
});

examples.forEach((code, i) => {
  test(`docs/node.md example ${i + 1}`, () => {
    const file = path.join(__dirname, '..', `.doc-example-${process.pid}-${i}.cjs`);
    fs.writeFileSync(file, code);
    try {
      execFileSync(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 });
    } catch (e) {
      assert.fail(`example ${i + 1} failed:\n${code}\n${e.stderr}`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

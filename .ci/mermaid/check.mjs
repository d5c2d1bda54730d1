// node check.mjs FILE...
//
// Parses each FILE with Mermaid's own parser (mermaid.parse) and prints
// "ok FILE" for each one that parses. At the first file that does not, it
// prints "FAIL FILE" and Mermaid's error message and exits 1. Exit 2 is a
// usage error (no FILE given).
//
// mermaid.parse needs no rendering, but parts of it touch the DOM: the
// sequenceDiagram `box` statement reads window.CSS / new Option(), and
// Mermaid's text sanitizer is DOMPurify, which binds to the global window when
// it is first imported. So a jsdom window is made global *before* mermaid is
// imported (a dynamic import, since static imports run first).

import { readFile } from 'node:fs/promises';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node check.mjs FILE...');
  process.exit(2);
}

const { JSDOM, VirtualConsole } = await import('jsdom');
const dom = new JSDOM('<!DOCTYPE html><html><head></head><body></body></html>', {
  pretendToBeVisual: true,
  virtualConsole: new VirtualConsole(), // drop jsdom's "not implemented" noise
});
const { window } = dom;

// Set a global only where Node has none (Node >= 21 has its own navigator).
function setGlobal(name, value) {
  if (name in globalThis) return;
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
}
setGlobal('window', window);
setGlobal('document', window.document);
setGlobal('navigator', window.navigator);
for (const name of [
  'Option', 'Element', 'HTMLElement', 'SVGElement', 'Node', 'NodeFilter',
  'DocumentFragment', 'DOMParser', 'XMLSerializer', 'MutationObserver',
  'getComputedStyle',
]) {
  if (window[name] !== undefined) setGlobal(name, window[name]);
}

const { default: mermaid } = await import('mermaid');
const { default: DOMPurify } = await import('dompurify');
if (typeof DOMPurify.sanitize !== 'function') {
  console.error('check.mjs: DOMPurify did not bind to the jsdom window');
  process.exit(3);
}
mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });

for (const file of files) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    console.log(`FAIL ${file}`);
    console.log(`cannot read: ${err.message}`);
    process.exit(1);
  }
  try {
    // Throws on a parse error; resolves to { diagramType, config } otherwise.
    await mermaid.parse(text);
  } catch (err) {
    console.log(`FAIL ${file}`);
    console.log(err?.message ?? String(err));
    process.exit(1);
  }
  console.log(`ok ${file}`);
}

// An ES module in a package without "type": "module": Node warns
// MODULE_TYPELESS_PACKAGE_JSON when it loads it. The extension says a
// line of its own on stderr, and a warning of its own.
export function activate() {
  console.error('esm-typeless: activated');
  process.emitWarning('esm-typeless: a warning of its own');
  return { tools: { hello: () => 'hi' } };
}

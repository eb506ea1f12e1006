export function activate(ctx) {
  return { tools: { hello: () => 'esm-named' } };
}

export function activate() {
  return { tools: { hello: () => 'hi' } };
}

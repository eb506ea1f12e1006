export function activate() {
  return { unrelated: true };
}
export const tools = { hello: () => 'from-module-exports' };

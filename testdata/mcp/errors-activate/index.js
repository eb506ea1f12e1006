export function activate() {
  const x = 1;
  throw new Error('boom');
}

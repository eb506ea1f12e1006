export function activate() {
  return { onEvent: () => { throw new Error('event refused'); } };
}

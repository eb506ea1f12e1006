export function activate() {
  throw new Error('activation refused');
}

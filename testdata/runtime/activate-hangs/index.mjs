export function activate() {
  return new Promise(() => {});
}

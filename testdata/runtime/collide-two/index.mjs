export function activate() {
  return { tools: { lookup_item: () => '@example/spirit-extension-two' } };
}

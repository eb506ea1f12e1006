export default function activate(ctx) {
  return { tools: { hello: () => 'esm-default-fn' } };
}

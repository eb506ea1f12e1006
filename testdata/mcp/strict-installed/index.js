export function activate() { return { tools: { hello: () => "hello" } }; }
